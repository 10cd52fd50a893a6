/**
 * The partition: the events of one env / index / UTC day of event time. A live segment counts its
 * events by partition, a seal writes one block per partition, and retention and merges work on
 * the days. Shared by wal/ and blocks/, so it depends on neither.
 */

export const DAY_US = 86_400_000_000;
/** A minute in µs: live segments and block sidecars count events per UTC minute. */
export const MINUTE_US = 60_000_000;

/** Events of one env/index/day: what becomes one block. */
export interface PartRow {
  env: string;
  index: string;
  /** Days since the epoch (UTC) of the event time. */
  day: number;
  count: number;
  minUs: number;
  maxUs: number;
}

/** The key of a partition in maps (names may hold any character but U+0001). */
export function partKey(env: string, index: string, day: number): string {
  return `${env}\u0001${index}\u0001${day}`;
}

/** yyyy-mm-dd of a day number: the block directory's name and the sidecar's `day`. */
export function dayString(day: number): string {
  // the date part whatever the year: years past 9999 print as +010000-01-01 (a block sealed
  // before the store's time guard may hold one), which slice(0, 10) cut to "+010000-01"
  return new Date(day * 86_400_000).toISOString().split('T')[0];
}

/**
 * An event time as ISO text for reports (retention), whatever the time: JS dates end at ±8.64e15
 * ms, and a block an older svc sealed may hold a time beyond (`toISOString` would throw).
 */
export function isoOfUs(us: number): string {
  const ms = Math.floor(us / 1000);
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(us);
}
