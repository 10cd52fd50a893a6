import { doc } from '../doc.js';
import type { Subquery } from '../parser-api.js';
import type { ColType, Schema } from '../schema.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import type { PipeDef } from './pipe.js';

/**
 * `| multisearch [search <query>] [search <query>] …` (Splunk's multisearch, a generating command):
 * the events of two or more searches together, newest first, as one search would give them. Each
 * search reads the same events (the environments and time range of the query; its own filters
 * narrow them) and may hold streaming pipes only, as Splunk requires: each event is changed or
 * dropped on its own, so the searches can run as one.
 */
export interface MultisearchPipe {
  kind: 'multisearch';
  subs: Subquery[];
}

/** Pipes that treat each event on its own (Splunk's streaming commands that svc has). */
export const STREAMING_PIPES: ReadonlySet<string> = new Set([
  'search',
  'where',
  'eval',
  'rex',
  'regex',
  'rename',
  'fields',
  'spath',
  'kv',
  'logfmt',
  'extract',
  'convert',
  'makemv',
  'mvexpand',
  'lookup',
  'nomv',
  'fromjson',
  'xmlkv',
  'iplocation',
]);

/** Splunk's bin is streaming when given its span (Search Reference, "Command types"); without one it reads every event first. */
const streaming = (p: { kind: string }): boolean =>
  STREAMING_PIPES.has(p.kind) || (p.kind === 'bin' && (p as { span?: string }).span !== undefined);

export function multisearchPipeWith(printSub: (q: Subquery) => string): PipeDef<MultisearchPipe> {
  return {
    name: 'multisearch',
    doc: doc(
      'multisearch [search <query>] [search <query>]… (after a leading "|")',
      'Starts a search with the events of two or more searches, newest first; their pipes may only change or drop each event on its own (eval, where, rex…).',
      '| multisearch [search status>=500 | eval kind="error"] [search sourcetype=linux:secure "Failed password" | eval kind="ssh"] | stats count by kind',
    ),
    parse(p, cmd) {
      if (!p.leading(cmd))
        throw p.fail('multisearch starts a search ("| multisearch [search …] [search …]" with nothing before it)', cmd);
      const subs: Subquery[] = [];
      while (!p.atPipeEnd()) {
        const open = p.peek('search');
        const sub = p.subquery('search');
        const other = sub.pipes.find((x) => !streaming(x));
        if (other)
          throw p.fail(
            `multisearch's searches may only hold streaming commands (${[...STREAMING_PIPES].join(', ')}, bin with span=), not ${other.kind}: aggregate after the multisearch`,
            open,
          );
        subs.push(sub);
      }
      if (subs.length < 2) throw p.fail('multisearch takes at least two searches in [brackets]', cmd);
      return { kind: 'multisearch', subs };
    },
    print: (n) => `multisearch ${n.subs.map(printSub).join(' ')}`,
    // its searches read the events themselves: compile.ts's readFields adds their fields
    reads: () => [],
    // the pipes after it read the searches' events: compile.ts has each search find what they read
    writes: () => [],
    compile(n, b) {
      if (!b.subquery) throw new Error('BUG: multisearch outside compile()');
      const subs: StageBuilder[] = n.subs.map((q) => b.subquery!(q, b.readLater));
      const schema: Schema = new Map<string, ColType>();
      for (const s of subs)
        for (const [name, type] of s.schema)
          schema.set(name, schema.has(name) && schema.get(name) !== type ? 'any' : type);
      if (schema.has('__ord')) throw pipeError('multisearch', 'a column may not be named __ord');
      const select = (s: StageBuilder) => `SELECT ${[...s.schema.keys()].map(ident).join(', ')} FROM ${s.cur}`;
      b.push(subs.map(select).join(' UNION ALL BY NAME '), schema);
      b.mode = subs.some((s) => s.mode === 'table') ? 'table' : 'events';
      // Splunk merges the searches' events by time, newest first, as one search returns them
      b.order = schema.get('_time') === 'time' ? [{ sql: '_time', desc: true, cols: ['_time'] }] : [];
    },
    generating: () => true,
  };
}
