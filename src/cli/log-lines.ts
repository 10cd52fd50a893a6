/**
 * The process log for a person: when stdout is a terminal, `svc serve` writes each pino record as
 * `time level msg key=value…` (an error's stack on the lines after it) instead of JSON; piped or
 * redirected, it stays JSON for log shippers. Written here rather than taken from pino-pretty: the
 * format is one function, and pino-pretty would bring a dozen packages for it.
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every record has that the line already shows, or that say nothing to a person at a terminal. */
const SHOWN = new Set(['time', 'level', 'msg', 'pid', 'hostname']);

/** `key=value`, quoting a value with spaces, quotes or `=` (JSON-style), objects as JSON. */
function pair(key: string, value: unknown): string {
  if (typeof value === 'string')
    return `${key}=${/^[^\s"=]*$/.test(value) && value !== '' ? value : JSON.stringify(value)}`;
  if (typeof value === 'object' && value !== null) return `${key}=${JSON.stringify(value)}`;
  return `${key}=${String(value)}`;
}

/** One pino JSON record as a line for a person; a line that is not a JSON object is passed on as it is. */
export function formatLogLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return `${json.trimEnd()}\n`;
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : '-';
  const level = (LEVELS[rec.level as number] ?? String(rec.level)).padEnd(5);
  const parts = [time, level, typeof rec.msg === 'string' ? rec.msg : ''];
  let stack = '';
  for (const [k, v] of Object.entries(rec)) {
    if (SHOWN.has(k) || v === undefined) continue;
    // pino's err serializer: the message in the line, the stack indented under it
    if ((k === 'err' || k === 'error') && v && typeof v === 'object' && 'message' in v) {
      const e = v as { message?: unknown; stack?: unknown };
      parts.push(pair(k, String(e.message)));
      if (typeof e.stack === 'string') stack += `${e.stack.replace(/^/gm, '    ')}\n`;
      continue;
    }
    parts.push(pair(k, v));
  }
  return `${parts.filter((p) => p !== '').join(' ')}\n${stack}`;
}

/** A pino destination that writes each record to `out` as formatLogLine does. */
export function humanLogDestination(out: { write(s: string): unknown }): { write(line: string): void } {
  return {
    write(line: string) {
      out.write(formatLogLine(line));
    },
  };
}
