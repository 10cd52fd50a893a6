/** A TIMESTAMP literal for epoch milliseconds (microsecond precision kept). */
export function timeLiteral(ms: number): string {
  if (!Number.isFinite(ms)) throw new Error(`BUG: non-finite time ${ms}`);
  return `make_timestamp(${Math.round(ms * 1000)}::BIGINT)`;
}
