import { addUnique, type FieldValue, type LogEvent } from '../../events/event.js';
import { eventTime } from '../../events/limits.js';
import { parseTimeValue, type TimeContext } from '../../events/timestamp.js';

/**
 * One syslog message → a canonical event (env/index filled by the listener). Pure.
 * RFC 5424: `<PRI>1 TIMESTAMP HOST APP PROCID MSGID [SD...] MSG`, structured data → fields
 * `<sd-id>.<name>`. RFC 3164: `<PRI>Mmm dd hh:mm:ss HOST TAG[PID]: MSG`, also with an RFC 3339
 * time (rsyslog's forward format), without a host (local /dev/log style) and with a tag without its
 * colon (docs/syslog.md, "Tags"). A year or zone the
 * message lacks comes from the current year and SVC_TIMEZONE (TimeContext). Anything without a
 * valid PRI is kept whole as the message, at arrival time.
 */

export const FACILITIES = [
  'kern',
  'user',
  'mail',
  'daemon',
  'auth',
  'syslog',
  'lpr',
  'news',
  'uucp',
  'cron',
  'authpriv',
  'ftp',
  'ntp',
  'security',
  'console',
  'solaris-cron',
  'local0',
  'local1',
  'local2',
  'local3',
  'local4',
  'local5',
  'local6',
  'local7',
];
export const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];

interface Cursor {
  s: string;
  p: number;
}

/** Next space-delimited token (advances past one following space). */
function token(c: Cursor): string {
  const end = c.s.indexOf(' ', c.p);
  const t = end < 0 ? c.s.slice(c.p) : c.s.slice(c.p, end);
  c.p = end < 0 ? c.s.length : end + 1;
  return t;
}

function nil(v: string): string | undefined {
  return v === '-' || v === '' ? undefined : v;
}

function parsePri(c: Cursor): number | undefined {
  const m = /^<(\d{1,3})>/.exec(c.s);
  if (!m || Number(m[1]) > 191) return undefined;
  c.p = m[0].length;
  return Number(m[1]);
}

/** `[id k="v" k2="v\"x"][id2]` at the cursor; params into fields. Returns false if not SD. */
function structuredData(c: Cursor, fields: Record<string, FieldValue>): void {
  const s = c.s;
  if (s[c.p] === '-') {
    c.p += s[c.p + 1] === ' ' ? 2 : 1;
    return;
  }
  while (s[c.p] === '[') {
    let p = c.p + 1;
    const idEnd = p + strcspn(s, p, ' ]');
    const id = s.slice(p, idEnd);
    p = idEnd;
    while (s[p] === ' ') {
      p++;
      const eq = s.indexOf('="', p);
      if (eq < 0) break;
      const name = s.slice(p, eq);
      let v = '';
      let q = eq + 2;
      for (; q < s.length && s[q] !== '"'; q++) {
        if (s[q] === '\\' && (s[q + 1] === '"' || s[q + 1] === '\\' || s[q + 1] === ']')) q++;
        v += s[q];
      }
      // a PARAM-NAME may repeat in its element (RFC 5424 allows it): every value is kept, the next as <name>_2
      addUnique(fields, `${id}.${name}`, v);
      p = q + 1;
    }
    if (s[p] !== ']') break;
    c.p = p + 1;
  }
  if (s[c.p] === ' ') c.p++;
}

function strcspn(s: string, p: number, stops: string): number {
  let q = p;
  while (q < s.length && !stops.includes(s[q])) q++;
  return q - p;
}

function rfc5424(c: Cursor, ev: LogEvent, time: TimeContext): void {
  const ts = token(c);
  const t = nil(ts) === undefined ? undefined : parseTimeValue(ts, time);
  if (t !== undefined) ev.timeUs = eventTime(t, ts, time.nowUs, time, ev.fields);
  ev.host = nil(token(c)) ?? '';
  const app = nil(token(c));
  const procid = nil(token(c));
  const msgid = nil(token(c));
  if (app) ev.fields.app = app;
  if (procid) ev.fields.procid = procid;
  if (msgid) ev.fields.msgid = msgid;
  ev.source = app ?? '';
  structuredData(c, ev.fields);
  let msg = c.s.slice(c.p);
  if (msg.charCodeAt(0) === 0xfeff) msg = msg.slice(1); // BOM
  ev.message = msg;
}

/**
 * The 3164 timestamp: `Mmm dd hh:mm:ss` (15 chars), with a fraction as syslog-ng's frac-digits()
 * sends it (`Mmm dd hh:mm:ss.249`), or an RFC 3339 token.
 */
function rfc3164Time(c: Cursor, time: TimeContext, ev: LogEvent): number | undefined {
  const s = c.s;
  const ch = s.charCodeAt(c.p);
  if (ch >= 65 && ch <= 90) {
    let end = c.p + 15;
    if (s[end] === '.') {
      let d = end + 1;
      while (d < s.length && d - end <= 9 && s.charCodeAt(d) >= 48 && s.charCodeAt(d) <= 57) d++;
      if (d > end + 1) end = d;
    }
    const text = s.slice(c.p, end);
    const t = parseTimeValue(text, time);
    if (t !== undefined) c.p = s[end] === ' ' ? end + 1 : end;
    return t === undefined ? t : eventTime(t, text, time.nowUs, time, ev.fields);
  }
  if (ch >= 48 && ch <= 57) {
    const save = c.p;
    const text = token(c);
    const t = parseTimeValue(text, time);
    if (t === undefined) c.p = save;
    return t === undefined ? t : eventTime(t, text, time.nowUs, time, ev.fields);
  }
  return undefined;
}

/** Longest program name taken from a tag; a longer first word is text, not a tag. */
const MAX_PROGRAM = 128;
/** Longest host name (syslog-ng's). */
const MAX_HOST = 255;
/** A host with colons is an IPv6 address; any other word with a colon is a tag (`app:`). */
const IPV6_LIKE = /^[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){1,7}$/i;

function skipSpaces(c: Cursor): void {
  while (c.s[c.p] === ' ') c.p++;
}

/**
 * The host after the time, as syslog-ng reads it: the next word when a space ends it; a word
 * ended by `[` or holding a `:` (but an IPv6 address) is the tag of a message without a host.
 */
function host(c: Cursor): string | undefined {
  const end = c.p + strcspn(c.s, c.p, ' [');
  const h = c.s.slice(c.p, end);
  if (c.s[end] !== ' ' || h === '' || h.length > MAX_HOST) return undefined;
  if (h.includes(':') && (!IPV6_LIKE.test(h) || h.endsWith(':'))) return undefined;
  c.p = end;
  return h;
}

/**
 * The tag, leniently, as syslog-ng and rsyslog split it: the program runs to the first space, `[`
 * or `:`, a pid follows in brackets. `app[pid]: ` (or `app: `) is a header and leaves the message;
 * a tag without that colon (`syslogd 1.4.1: restart.`, `sandboxd[129] ([31211]): …`) names the app
 * and pid all the same, but the message keeps the whole text, as the first word may be its own.
 */
function tag(c: Cursor, ev: LogEvent): void {
  const s = c.s;
  const start = c.p;
  let p = start + strcspn(s, start, ' [:');
  const program = s.slice(start, p);
  let pid: string | undefined;
  if (s[p] === '[') {
    const q = p + 1 + strcspn(s, p + 1, ' ]:');
    if (s[q] === ']') {
      pid = s.slice(p + 1, q);
      p = q + 1;
    }
  }
  ev.message = s.slice(start);
  if (program === '' || p - start > MAX_PROGRAM) return;
  ev.fields.app = program;
  ev.source = program;
  if (pid) ev.fields.procid = pid;
  if (s[p] === ':' && (p + 1 === s.length || s[p + 1] === ' ')) ev.message = s.slice(p + 2);
}

function rfc3164(c: Cursor, ev: LogEvent, time: TimeContext): void {
  const t = rfc3164Time(c, time, ev);
  // without a time there is no host either (syslog-ng, rsyslog): the tag comes first
  if (t !== undefined) {
    ev.timeUs = t;
    skipSpaces(c);
    if (repeated(c, ev)) return;
    const h = host(c);
    if (h !== undefined) ev.host = h;
    skipSpaces(c);
    if (repeated(c, ev)) return;
  }
  tag(c, ev);
}

/** syslogd's own "last message repeated 3 times" (forwarded without a host, or in a file with one) has no tag. */
function repeated(c: Cursor, ev: LogEvent): boolean {
  if (!c.s.startsWith('last message repeated', c.p)) return false;
  ev.message = c.s.slice(c.p);
  return true;
}

/** Parses one message (no framing, trailing CR/LF/NUL already removed). */
export function parseSyslog(line: string, time: TimeContext): LogEvent {
  const ev: LogEvent = {
    timeUs: time.nowUs,
    env: '',
    index: '',
    host: '',
    source: '',
    sourcetype: 'syslog',
    message: line,
    fields: {},
  };
  const c: Cursor = { s: line, p: 0 };
  const pri = parsePri(c);
  if (pri === undefined) return ev;
  ev.fields.facility = FACILITIES[pri >> 3] ?? String(pri >> 3);
  ev.fields.severity = SEVERITIES[pri & 7];
  ev.fields.priority = pri;
  if (line[c.p] === '1' && line[c.p + 1] === ' ') {
    c.p += 2;
    ev.fields.syslog_format = 'rfc5424';
    rfc5424(c, ev, time);
  } else {
    ev.fields.syslog_format = 'rfc3164';
    rfc3164(c, ev, time);
  }
  return ev;
}
