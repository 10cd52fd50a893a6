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

/**
 * The LookupWriter over the admin's LookupService: the rows become a CSV uploaded as a new version
 * of the table (so it is checked, stored and replicated as an upload is). With `append`, the
 * table's current rows come first; a column only one side has is empty on the other's rows, and
 * names match without regard to case, as the CSV's header requires.
 */
export function lookupWriter(service: LookupService): LookupWriter {
  return {
    async write(name, columns, rows, opts) {
      let cols = [...columns];
      let out: string[][] = rows.map((r) => r.map(cellText));
      const exists = service.list().some((t) => t.name === name);
      if (opts.append && exists) {
        const old: (string | null)[][] = [];
        const { data } = await service.csv(name);
        let oldCols: string[] = [];
        await readLookupCsv(data, {
          header: async (c) => {
            oldCols = c;
          },
          row: (v) => old.push(v),
        });
        const at = new Map(oldCols.map((c, i) => [c.toLowerCase(), i]));
        const extra = cols.filter((c) => !at.has(c.toLowerCase()));
        const merged = [...oldCols, ...extra];
        const place = cols.map((c) => at.get(c.toLowerCase()) ?? oldCols.length + extra.indexOf(c));
        const mine = out.map((r) => {
          const row = new Array<string>(merged.length).fill('');
          r.forEach((v, i) => (row[place[i]] = v));
          return row;
        });
        out = [...old.map((r) => [...r.map((v) => v ?? ''), ...extra.map(() => '')]), ...mine];
        cols = merged;
      }
      await service.put(name, csvText(cols, out), opts.by);
    },
  };
}
