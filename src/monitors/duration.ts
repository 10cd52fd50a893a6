/** A monitor duration (`30s`, `5m`, `1h`, `1d`) in milliseconds; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const m = /^(\d{1,6})(s|m|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return n > 0 ? n * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'] : undefined;
}

/** The limits of docs/decisions/0017-monitors.md: a monitor runs every 1 minute to every 24 hours. */
export const EVERY_MIN_MS = 60_000;
export const EVERY_MAX_MS = 86_400_000;
/** A window reaches back at most 31 days. */
export const WINDOW_MAX_MS = 31 * 86_400_000;
