/**
 * Splunk's `date_*` fields, derived from `_time` in UTC. Splunk takes them from the timestamp as
 * written in the raw event, in the event's own zone; svc keeps no event zone, so it takes them from
 * `_time` in UTC (the same for events stamped in UTC, shifted for events stamped in another zone).
 * Like a field found in the message (auto-fields.ts), an event's own stored field of the name wins.
 * Values are text, as Splunk's are: `date_hour` `"0"`…`"23"`, `date_month` `"january"`, `date_wday`
 * `"monday"`, `date_zone` the offset from UTC in minutes, always `"0"`.
 */
const DATE_FIELDS: Record<string, (t: string) => string> = {
  date_hour: (t) => `CAST(hour(${t}) AS VARCHAR)`,
  date_mday: (t) => `CAST(day(${t}) AS VARCHAR)`,
  date_minute: (t) => `CAST(minute(${t}) AS VARCHAR)`,
  date_month: (t) => `lower(monthname(${t}))`,
  date_second: (t) => `CAST(second(${t}) AS VARCHAR)`,
  date_wday: (t) => `lower(dayname(${t}))`,
  date_year: (t) => `CAST(year(${t}) AS VARCHAR)`,
  date_zone: (t) => `CASE WHEN ${t} IS NOT NULL THEN '0' END`,
};

/** The names, for the language reference. */
export const DATE_FIELD_NAMES: readonly string[] = Object.keys(DATE_FIELDS);

export function isDateField(name: string): boolean {
  return Object.hasOwn(DATE_FIELDS, name);
}

/** SQL (VARCHAR) of a date field from the time column `timeSql` (a TIMESTAMP in UTC). */
export function dateFieldSql(name: string, timeSql: string): string {
  const f = DATE_FIELDS[name];
  if (!f) throw new Error(`BUG: ${name} is not a date field`);
  return f(timeSql);
}
