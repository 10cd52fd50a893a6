/**
 * The Splunk search corpus (test/query/splunk-corpus/, README there): real searches from public
 * detection rules and published Splunk apps, with the macros their sources define. Read by
 * bench/splunk-corpus.ts (the measure) and test/query/splunk-corpus.test.ts (the ratchet), so that
 * both count a search the same way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '../../src/query/parser.js';
import { PIPES } from '../../src/query/pipes/registry.js';
import { isSvcError } from '../../src/errors/svc-error.js';

export const CORPUS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'query', 'splunk-corpus');

/** One search as its source wrote it (`searches.jsonl`). */
export interface CorpusEntry {
  id: string;
  /** `owner/repo@commit:path [stanza]`: where the search was copied from. */
  source: string;
  /** detection, baseline, investigation (security_content), saved (savedsearches.conf), dashboard. */
  kind: string;
  /** The app whose macros the search may call. */
  scope: string;
  search: string;
}

/** A search macro of one scope (`macros.jsonl`); `name` may hold `*` (security_content's `<name>_filter`). */
export interface Macro {
  scope: string;
  name: string;
  args: string[];
  definition: string;
  source: string;
}

export interface CorpusSearch extends CorpusEntry {
  /** The search with its macros expanded as Splunk does (the text svc is measured on). */
  expanded: string;
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** The corpus with macros expanded, or undefined when its file is absent. Throws on a macro it cannot expand. */
export function loadCorpus(dir = CORPUS_DIR): CorpusSearch[] | undefined {
  const searchesFile = join(dir, 'searches.jsonl');
  if (!existsSync(searchesFile)) return undefined;
  const macros = readJsonl<Macro>(join(dir, 'macros.jsonl'));
  return readJsonl<CorpusEntry>(searchesFile).map((e) => {
    const own = macros.filter((m) => m.scope === e.scope);
    try {
      return { ...e, expanded: expandMacros(e.search, own) };
    } catch (err) {
      throw new Error(`${e.id}: ${(err as Error).message}`, { cause: err });
    }
  });
}

function findMacro(macros: Macro[], name: string, nargs: number): Macro | undefined {
  const fits = (m: Macro) => m.args.length === nargs;
  return (
    macros.find((m) => fits(m) && m.name === name) ??
    macros.find((m) => fits(m) && m.name.includes('*') && wildcard(m.name).test(name))
  );
}

function wildcard(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Splits macro arguments at top-level commas (not inside quotes or parentheses). */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && quoted && i + 1 < s.length) {
      cur += s.slice(i, i + 2);
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    else if (!quoted && depth === 0 && c === ',') {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur.trim());
  return out;
}

/** The end of the double-quoted string that opens at `i` (the index after its closing quote). */
function quotedEnd(s: string, i: number): number {
  let j = i + 1;
  while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
  return j + 1;
}

/**
 * Expands `` `name` `` and `` `name(a, b)` `` calls with `macros` (one scope's), recursively, as
 * Splunk does before it parses: text substitution, `$arg$` replaced by the argument. Left alone:
 * ```comments``` and backticks inside a double-quoted string (regexes in `rex` hold them).
 * Throws when a macro is not defined.
 */
export function expandMacros(s: string, macros: Macro[], depth = 0): string {
  if (depth > 20) throw new Error('macros nest deeper than 20');
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('```', i)) {
      const end = s.indexOf('```', i + 3);
      if (end < 0) throw new Error('unclosed ``` comment');
      out += s.slice(i, end + 3);
      i = end + 3;
    } else if (s[i] === '"') {
      const end = quotedEnd(s, i);
      out += s.slice(i, end);
      i = end;
    } else if (s[i] === '`') {
      const end = s.indexOf('`', i + 1);
      if (end < 0) throw new Error('unclosed macro call');
      out += expandCall(s.slice(i + 1, end).trim(), macros, depth);
      i = end + 1;
    } else out += s[i++];
  }
  return out;
}

function expandCall(call: string, macros: Macro[], depth: number): string {
  const m = /^([\w.:-]+)\s*(?:\(([\s\S]*)\))?$/.exec(call);
  if (!m) throw new Error(`cannot read macro call ${JSON.stringify(call)}`);
  const args = m[2] === undefined || m[2].trim() === '' ? [] : splitArgs(m[2]);
  const values = args.map((a) => expandMacros(a, macros, depth + 1));
  const macro = findMacro(macros, m[1], values.length);
  if (!macro) throw new Error(`undefined macro ${m[1]}(${values.length})`);
  let def = macro.definition;
  macro.args.forEach((name, k) => (def = def.replaceAll(`$${name}$`, values[k])));
  return expandMacros(def, macros, depth + 1);
}

/**
 * The search's first command: `| tstats`, `| inputlookup`, … for a generating command, `search`
 * for a plain search (with or without the `search` keyword). Leading ```comments``` are skipped.
 */
export function leadingCommand(q: string): string {
  const s = q.replace(/^(\s*```[\s\S]*?```)*\s*/, '');
  if (!s.startsWith('|')) return 'search';
  const word = /^\|\s*([A-Za-z_][\w-]*)/.exec(s);
  return word ? `| ${word[1].toLowerCase()}` : '|';
}

/**
 * The commands a search uses (`| name`, the leading one and those in subsearches too), lower case,
 * found by scanning outside double-quoted strings and ```comments```. A lexical scan, not a parse:
 * it names the commands of searches svc cannot parse at all.
 */
export function commandsOf(q: string): Set<string> {
  const out = new Set<string>();
  const unquoted = q.replace(/```[\s\S]*?```|"(?:[^"\\]|\\.)*"/g, ' ');
  for (const m of unquoted.matchAll(/\|\s*([A-Za-z_][\w-]*)/g)) out.add(m[1].toLowerCase());
  return out;
}

/**
 * Commands that belong to a Splunk app rather than to Splunk itself, found in the corpus: each runs
 * code its app ships (Cyences' managers, the ML Toolkit's fit/apply, Palo Alto's AutoFocus tags, …),
 * so no other tool can run them.
 */
export const APP_COMMANDS = [
  'apply',
  'azureadmodifiedpropertiesformatter',
  'cyberchef',
  'cyencesdevicemanager',
  'cyencesinventorybackfill',
  'cyencesproductmanager',
  'cyencesusermanager',
  'decrypt',
  'dnstwist',
  'fit',
  'panautofocustags',
  'removepostfixes',
  'timestampbasedcorrelation',
];

/**
 * Why a search cannot run outside Splunk whatever svc's language does: it reads an object only a
 * Splunk deployment has (a data model, `| rest` endpoints, the metrics store of `| mstats`, the
 * bucket and index catalogue of `| dbinspect`/`| metadata`) or calls an app's own command.
 * Undefined when it needs none. Found lexically, outside double-quoted strings and comments.
 */
export function splunkOnlyReason(q: string): string | undefined {
  const cmds = commandsOf(q);
  const unquoted = q.replace(/```[\s\S]*?```|"(?:[^"\\]|\\.)*"/g, ' ');
  if (
    cmds.has('datamodel') ||
    cmds.has('pivot') ||
    /\bdatamodel\s*[=:]/i.test(unquoted) ||
    /\|\s*from\s+datamodel\b/i.test(unquoted)
  )
    return 'data model';
  if (cmds.has('rest')) return '| rest';
  if (cmds.has('mstats') || cmds.has('mcatalog')) return '| mstats (metrics)';
  if (cmds.has('dbinspect')) return '| dbinspect';
  if (cmds.has('metadata')) return '| metadata';
  const app = APP_COMMANDS.find((c) => cmds.has(c));
  return app ? `app command ${app}` : undefined;
}

export type ParseOutcome = { ok: true } | { ok: false; message: string; position: number };

/**
 * svc's parser on one search. A refusal is SvcError('invalid_query') with a position; anything
 * else (a TypeError, an error without a position) is a bug and is thrown.
 */
export function tryParse(q: string): ParseOutcome {
  try {
    parse(q);
    return { ok: true };
  } catch (e) {
    const position = isSvcError(e) ? e.details?.position : undefined;
    if (!isSvcError(e) || e.code !== 'invalid_query' || typeof position !== 'number') throw e;
    return { ok: false, message: e.message, position };
  }
}

/**
 * A refusal's message with the search's own values taken out, so that searches refused for one
 * reason group together: quoted values other than a bare word or operator become "…", numbers N,
 * an embedded JavaScript regex /…/. Command, function and keyword names stay: they are the reason.
 */
export function reasonOf(message: string): string {
  return message
    .replace(/\/(?:[^/\\]|\\.)*\/[a-z]*: /g, '/…/: ')
    .replace(/"(?:[^"\\]|\\.)*"/g, (q) => {
      // not JSON.parse: a message may quote a value without escaping it as JSON would
      const text = q.slice(1, -1);
      if (/^[A-Za-z_][\w-]{0,31}$/.test(text) || /^[^\w\s"\\]{1,3}$/.test(text)) return q;
      return text.startsWith('\\"') ? '"\\"…\\""' : '"…"';
    })
    .replace(/\b\d+\b/g, 'N');
}

/** How many searches of one group (a leading command, a kind) there are and how many parse. */
export interface Share {
  name: string;
  total: number;
  parsed: number;
}

export interface ReasonStats {
  reason: string;
  count: number;
  /** One search refused for it: its id, the message, and the text around the position. */
  example: { id: string; message: string; near: string };
}

export interface CorpusReport {
  total: number;
  parsed: number;
  /** Searches that parse as their sources wrote them, macros not expanded. */
  parsedRaw: number;
  /**
   * The searches that need an object only Splunk has (splunkOnlyReason) and, over all the others
   * (the fair denominator), how many parse.
   */
  splunkOnly: { total: number; byReason: { reason: string; searches: number }[] };
  fair: { total: number; parsed: number };
  byLead: Share[];
  byKind: Share[];
  reasons: ReasonStats[];
  /**
   * Commands svc does not have, by the number of searches using them anywhere: unlike `reasons`,
   * which counts only a search's first refusal, this counts every search a command would unblock.
   */
  missingCommands: { name: string; searches: number }[];
}

function tally(map: Map<string, { total: number; parsed: number }>, key: string, ok: boolean): void {
  const t = map.get(key) ?? { total: 0, parsed: 0 };
  t.total++;
  if (ok) t.parsed++;
  map.set(key, t);
}

/** Parses every search (macros expanded) and counts: overall, per leading command, per kind, per refusal reason. */
export function measure(corpus: CorpusSearch[]): CorpusReport {
  const leads = new Map<string, { total: number; parsed: number }>();
  const kinds = new Map<string, { total: number; parsed: number }>();
  const reasons = new Map<string, ReasonStats>();
  const missing = new Map<string, number>();
  let parsed = 0;
  let parsedRaw = 0;
  const only = new Map<string, number>();
  const fair = { total: 0, parsed: 0 };
  for (const s of corpus) {
    const r = tryParse(s.expanded);
    const why = splunkOnlyReason(s.expanded);
    if (why) only.set(why, (only.get(why) ?? 0) + 1);
    else {
      fair.total++;
      if (r.ok) fair.parsed++;
    }
    if (tryParse(s.search).ok) parsedRaw++;
    tally(leads, leadingCommand(s.expanded), r.ok);
    tally(kinds, s.kind, r.ok);
    for (const c of commandsOf(s.expanded)) if (!Object.hasOwn(PIPES, c)) missing.set(c, (missing.get(c) ?? 0) + 1);
    if (r.ok) {
      parsed++;
      continue;
    }
    const reason = reasonOf(r.message);
    const known = reasons.get(reason);
    if (known) known.count++;
    else {
      const near = s.expanded.slice(Math.max(0, r.position - 30), r.position + 50).replace(/\s+/g, ' ');
      reasons.set(reason, { reason, count: 1, example: { id: s.id, message: r.message, near } });
    }
  }
  const shares = (m: Map<string, { total: number; parsed: number }>): Share[] =>
    [...m].map(([name, t]) => ({ name, ...t })).sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  return {
    total: corpus.length,
    parsed,
    parsedRaw,
    splunkOnly: {
      total: corpus.length - fair.total,
      byReason: [...only]
        .map(([reason, searches]) => ({ reason, searches }))
        .sort((a, b) => b.searches - a.searches || a.reason.localeCompare(b.reason)),
    },
    fair,
    byLead: shares(leads),
    byKind: shares(kinds),
    reasons: [...reasons.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    missingCommands: [...missing]
      .map(([name, searches]) => ({ name, searches }))
      .sort((a, b) => b.searches - a.searches || a.name.localeCompare(b.name)),
  };
}
