import { SvcError } from '../errors/svc-error.js';
import { readLookupCsv } from './csv.js';
import type { LookupService } from './service.js';
import type { LookupWriter } from '../query/lookup-catalog.js';

/** One value as the text of a CSV cell: null as empty, a list as its values one per line (Splunk's multivalue cell). */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(cellText).join('\n');
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** RFC 4180: quoted when it holds a comma, a quote, a line break or spaces at an end. */
function csvCell(s: string): string {
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvText(columns: string[], rows: string[][]): Buffer {
  const lines = [columns, ...rows].map((r) => r.map(csvCell).join(','));
  return Buffer.from(lines.join('\n') + '\n');
}

/** The current rows of table `name` and their header. */
async function currentRows(service: LookupService, name: string): Promise<{ columns: string[]; rows: string[][] }> {
  const rows: string[][] = [];
  let columns: string[] = [];
  const { data } = await service.csv(name);
  await readLookupCsv(data, {
    header: async (c) => {
      columns = c;
    },
    row: (v) => rows.push(v.map((x) => x ?? '')),
  });
  return { columns, rows };
}

/**
 * The table's rows and these rows over one header: the table's columns, then these rows' others;
 * a column only one side has is empty on the other's rows, and names match without regard to
 * case, as the CSV's header requires.
 */
function joinColumns(old: { columns: string[]; rows: string[][] }, columns: string[], rows: string[][]) {
  const at = new Map(old.columns.map((c, i) => [c.toLowerCase(), i]));
  const extra = columns.filter((c) => !at.has(c.toLowerCase()));
  const merged = [...old.columns, ...extra];
  const place = columns.map((c) => at.get(c.toLowerCase()) ?? old.columns.length + extra.indexOf(c));
  const mine = rows.map((r) => {
    const row = new Array<string>(merged.length).fill('');
    r.forEach((v, i) => (row[place[i]] = v));
    return row;
  });
  return { columns: merged, old: old.rows.map((r) => [...r, ...extra.map(() => '')]), mine };
}

/**
 * Splunk's update by key (outputlookup key_field=, a KV store's `_key`): a table row whose key a
 * new row has is replaced, in its place, by the last new row with that key (a second table row with
 * it is dropped, so the key stays unique as `_key` is); the new rows' other keys come after, in the
 * order they first appear; rows with an empty key are added as they are (a record without a key).
 */
function updateByKey(old: string[][], mine: string[][], k: number): string[][] {
  const byKey = new Map<string, string[]>();
  const keyless: string[][] = [];
  for (const r of mine) {
    if (r[k] === '') keyless.push(r);
    else byKey.set(r[k], r);
  }
  const used = new Set<string>();
  const out: string[][] = [];
  for (const r of old) {
    const row = byKey.get(r[k]);
    if (row === undefined) out.push(r);
    else if (!used.has(r[k])) {
      used.add(r[k]);
      out.push(row);
    }
  }
  for (const [key, row] of byKey) if (!used.has(key)) out.push(row);
  return [...out, ...keyless];
}

const keyIndex = (columns: string[], key: string) => columns.findIndex((c) => c.toLowerCase() === key.toLowerCase());

/**
 * The LookupWriter over the admin's LookupService: the rows become a CSV uploaded as a new version
 * of the table (so it is checked, stored and replicated as an upload is). With `append`, the
 * table's current rows come first; with `key`, the table is updated by that column (updateByKey).
 */
export function lookupWriter(service: LookupService): LookupWriter {
  return {
    async write(name, columns, rows, opts) {
      let cols = [...columns];
      let out: string[][] = rows.map((r) => r.map(cellText));
      const exists = service.list().some((t) => t.name === name);
      if (opts.key !== undefined && keyIndex(cols, opts.key) < 0)
        throw new SvcError(
          'invalid_query',
          `outputlookup: key_field "${opts.key}" is not a column of the search's rows`,
        );
      if ((opts.append || opts.key !== undefined) && exists) {
        const old = await currentRows(service, name);
        const j = joinColumns(old, cols, out);
        cols = j.columns;
        if (opts.key === undefined) out = [...j.old, ...j.mine];
        else {
          const k = keyIndex(old.columns, opts.key);
          if (k < 0)
            throw new SvcError(
              'invalid_query',
              `outputlookup: lookup table "${name}" has no column "${opts.key}" to update by (key_field)`,
            );
          out = updateByKey(j.old, j.mine, k);
        }
      } else if (opts.key !== undefined) out = updateByKey([], out, keyIndex(cols, opts.key));
      await service.put(name, csvText(cols, out), opts.by);
    },
  };
}
