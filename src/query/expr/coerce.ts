import type { ColRef } from '../schema.js';
import { asNumber, asText, timeText } from '../sql.js';

/** Coercions between the compiler's column types, as SQL. */
export function toNum(r: ColRef): string {
  if (r.type === 'num') return r.sql;
  if (r.type === 'time') return `(epoch_us(${r.sql}) / 1e6)`;
  return asNumber(r.sql);
}

export function toStr(r: ColRef): string {
  if (r.type === 'str') return r.sql;
  if (r.type === 'time') return timeText(r.sql);
  return asText(r.sql);
}

export function toBool(r: ColRef): string {
  return r.type === 'bool' ? r.sql : `TRY_CAST(${r.sql} AS BOOLEAN)`;
}

