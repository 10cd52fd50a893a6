/**
 * How many real Splunk searches svc's parser accepts: every search of the corpus under
 * test/query/splunk-corpus/ (public detection rules and published apps; README there), its macros
 * expanded as Splunk would, through `parse` (src/query/parser.ts). No server, no data: this counts
 * what svc refuses to read, not whether its answers are right.
 *
 *   npx tsx bench/splunk-corpus.ts [--top 30] [--json out.json]
 *
 * Prints the total and the share parsed, then the searches that need an object only Splunk has (a
 * data model, `| rest`, `| mstats`, `| dbinspect`, `| metadata`, an app's own command) and the
 * share parsed of all the others (the fair rate), the share per leading command (`search` for a plain
 * search, `| tstats`, `| inputlookup`, …) and per kind of source, then the most common refusals:
 * the message with the search's own values taken out, the count and one example. A search counts
 * under its first refusal only; fixing one reason may uncover the next. Last, the commands svc
 * does not have, by how many searches use each anywhere (a lexical scan, not a parse).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CORPUS_DIR, loadCorpus, measure, type Share } from '../test/helpers/splunk-corpus.js';

const { values: a } = parseArgs({
  options: {
    top: { type: 'string', default: '30' },
    json: { type: 'string' },
  },
});

const pct = (n: number, of: number) => `${((100 * n) / Math.max(of, 1)).toFixed(1)} %`;

function shareTable(title: string, shares: Share[]): void {
  console.log(`\n${title.padEnd(28)} ${'searches'.padStart(8)} ${'parsed'.padStart(7)} ${'share'.padStart(8)}`);
  for (const s of shares)
    console.log(
      `${s.name.padEnd(28)} ${String(s.total).padStart(8)} ${String(s.parsed).padStart(7)} ${pct(s.parsed, s.total).padStart(8)}`,
    );
}

function main(): void {
  const corpus = loadCorpus();
  if (!corpus) {
    console.log(`no corpus at ${CORPUS_DIR}; nothing to measure`);
    return;
  }
  const r = measure(corpus);
  console.log(`Splunk search corpus: ${r.total} searches (${CORPUS_DIR})`);
  console.log(`parsed: ${r.parsed} (${pct(r.parsed, r.total)}), macros expanded`);
  console.log(`parsed as written, macros not expanded: ${r.parsedRaw} (${pct(r.parsedRaw, r.total)})`);
  console.log(`needing an object only Splunk has: ${r.splunkOnly.total} (${pct(r.splunkOnly.total, r.total)})`);
  for (const x of r.splunkOnly.byReason) console.log(`${String(x.searches).padStart(7)}  ${x.reason}`);
  console.log(
    `parsed of the other ${r.fair.total} (the fair rate): ${r.fair.parsed} (${pct(r.fair.parsed, r.fair.total)})`,
  );
  shareTable('leading command', r.byLead);
  shareTable('kind', r.byKind);
  const top = r.reasons.slice(0, Number(a.top));
  console.log(`\ntop ${top.length} of ${r.reasons.length} refusal reasons (count, reason, one example):`);
  for (const x of top) {
    console.log(`${String(x.count).padStart(5)}  ${x.reason}`);
    console.log(`       ${x.example.id}: …${x.example.near}…`);
  }
  const missing = r.missingCommands.slice(0, Number(a.top));
  console.log(
    `\ncommands svc does not have, by searches using them (top ${missing.length} of ${r.missingCommands.length}):`,
  );
  console.log(missing.map((m) => `${m.name} ${m.searches}`).join(', '));
  if (a.json) writeFileSync(a.json, JSON.stringify(r, null, 2));
}

main();
