/** Formatting shared by every page: times in the browser's zone (UTC on hover), counts, durations. */

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function timeZoneName(): string {
  return zone;
}

/** `+01:00` for the browser's zone at `d`. */
export function utcOffset(d = new Date()): string {
  const m = -d.getTimezoneOffset();
  const sign = m >= 0 ? '+' : '-';
  const a = Math.abs(m);
  return `${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `2026-11-23 14:05:09.123` in local time; the microseconds of svc's times are kept when present. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const frac = /\.(\d+)/.exec(iso)?.[1];
  // a time stamped to the second shows no `.000` it never had
  const sub = frac && /[1-9]/.test(frac.slice(0, 3)) ? `.${frac.slice(0, 3).padEnd(3, '0')}` : '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${sub}`;
}

/** Short local date-time for tables: `Nov 23, 14:05`. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    year: sameYear ? undefined : 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** `Feb 21, 2027`: a date without the time of day. */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: 'numeric' });
}

/** `3 min ago`, `in 5 days`. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const diff = Date.parse(iso) - now;
  const abs = Math.abs(diff);
  const units: [number, Intl.RelativeTimeFormatUnit][] = [
    [365 * 86_400_000, 'year'],
    [30 * 86_400_000, 'month'],
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  const fmt = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [ms, unit] of units) if (abs >= ms) return fmt.format(Math.round(diff / ms), unit);
  return 'just now';
}

export function utcTitle(iso: string): string {
  return `${iso} (UTC)`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 row`, `1,204 rows`. */
export function rowsText(n: number): string {
  return `${count(n)} ${n === 1 ? 'row' : 'rows'}`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A field value as text: strings as they are, the rest as JSON. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
