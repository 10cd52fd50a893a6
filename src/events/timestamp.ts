import { UTC_ZONE, zoneByName, type Zone } from './zone.js';

/**
 * Timestamp extraction, shared by every ingest protocol. All results are epoch MICROseconds
 * (LogEvent.timeUs); `undefined` means "no timestamp here" (callers fall back to arrival time).
 *
 * - parseTimeValue: a field value (`_time`, `@timestamp`, `ts`, ...): RFC 3339 / ISO 8601 with or
 *   without zone, epoch s/ms/µs/ns as number or numeric string (unit by magnitude), and every text
 *   format below.
 * - leadingTimestamp: a timestamp at or near the start of a text line: tried at the start of each of
 *   the first MAX_TOKENS whitespace-separated tokens (within the first MAX_SCAN chars), so
 *   `nova-api.log 2017-05-16 00:00:00.008`, `- 1117838570 ...` (BGL) and HPC's 5th-column epoch match,
 *   but not past a word that starts the line's text (a date inside a sentence is not a time).
 *
 * Formats (examples from ../shared/data/real): `2018-03-24T17:15:47.733658Z`,
 * `[17/May/2015:10:05:03 +0000]`, `Jun 14 15:16:01` (no year), `2015-07-29 17:41:44,747`,
 * `17/06/09 20:10:40` (yy/MM/dd), `081109 203615` (yyMMdd HHmmss), `[Sun Dec 04 04:47:44 2005]`,
 * `20171223-22:15:29:606`, `03-17 16:13:38.811` (MM-dd), `[10.30 16:49:06]` (MM.dd),
 * `[2016-12-19 18:01:53,612]`, `2005-06-03-15.42.50.675872`, `Sun, 04 Dec 2005 04:47:44 GMT`,
 * `04/12/2005 04:47:44` (MM/dd/yyyy, dd/MM/yyyy when the first number is > 12), `17-May-2015 10:05:03`,
 * `17.05.2015 10:05:03`, epoch seconds (10 digits, optional fraction), ms (13), µs (16), ns (19).
 *
 * Zoneless times are read in ctx.zone (SVC_TIMEZONE). A date without a year gets the current year,
 * or the previous one when that would put it more than FUTURE_SLACK_US ahead of ctx.nowUs (a
 * day of slack, so a sender whose clock or zone is a little ahead does not jump back a year).
 *
 * Fast path design: one char decides which format to try; digits are read with charCodeAt, no
 * regular expressions and no allocations. Parse state lives in module-level scratch variables
 * (JavaScript is single-threaded and nothing here awaits), so a parse allocates nothing.
 */

export interface TimeContext {
  /** "Now" in epoch µs, for dates without a year. Refresh it per request (or per batch). */
  nowUs: number;
  /** Zone of timestamps that carry none. */
  zone: Zone;
  /** The latest time an event may carry: now + SVC_MAX_FUTURE_DRIFT_SECS, at most the end of year 9999. */
  maxUs: number;
}

/** 0001-01-01T00:00:00Z in µs: the first instant DuckDB, JS Date and the block days all print. */
export const MIN_EVENT_US = -62_135_596_800_000_000;
/**
 * 9999-12-31T23:59:59.999Z in µs, the last event time. Doubles near 2.5e17 are 32 apart, so the
 * last microsecond of 9999 would round to year 10000: the bound stays a millisecond short of it.
 */
export const MAX_EVENT_US = Date.UTC(9999, 11, 31, 23, 59, 59, 999) * 1000;
/** How far ahead of now an event time may be by default (2 days, SVC_MAX_FUTURE_DRIFT_SECS). */
export const DEFAULT_MAX_FUTURE_SECS = 2 * 86_400;

/**
 * Builds a context; `zoneName` is SVC_TIMEZONE (config.timezone), `nowMs` the clock's now(),
 * `maxFutureSecs` SVC_MAX_FUTURE_DRIFT_SECS.
 */
export function timeContext(zoneName: string, nowMs: number, maxFutureSecs = DEFAULT_MAX_FUTURE_SECS): TimeContext {
  const nowUs = nowMs * 1000;
  const maxUs = Math.min(nowUs + maxFutureSecs * 1_000_000, MAX_EVENT_US);
  return { nowUs, zone: zoneName === 'UTC' ? UTC_ZONE : zoneByName(zoneName), maxUs };
}

/**
 * May an event carry the time `us`? Only inside years 1-9999 and no later than ctx.maxUs: the one
 * check every protocol's event time passes (events/limits.ts eventTime). A time that rounds up to
 * year 10000 in µs (9999-12-31T23:59:59.999999Z is past 2^53) is out, as a NaN is.
 */
export function inTimeWindow(us: number, ctx: TimeContext): boolean {
  return us >= MIN_EVENT_US && us <= ctx.maxUs;
}

export const MAX_TOKENS = 6;
export const MAX_SCAN = 128;
export const FUTURE_SLACK_US = 86_400_000_000;

// --- scratch state of the parse in progress -------------------------------------------------
let Y = 0;
let MO = 0;
let D = 0;
let H = 0;
let MI = 0;
let S = 0;
let US = 0;
/** Zone offset in minutes east of UTC; NaN = none given. */
let OFF = NaN;
/** Position after the last thing read. */
let END = 0;
let NO_YEAR = false;
/** Where the last timestamp leadingTimestamp found starts and ends in its line. */
let MATCH_START = 0;
let MATCH_END = 0;

const SPACE = 32;
const TAB = 9;

function dig(s: string, p: number): number {
  const c = s.charCodeAt(p) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

function isDigit(s: string, p: number): boolean {
  const c = s.charCodeAt(p);
  return c >= 48 && c <= 57;
}

function isLetter(s: string, p: number): boolean {
  const c = s.charCodeAt(p) | 0x20;
  return c >= 97 && c <= 122;
}

/** Exactly n digits at p, else -1. */
function num(s: string, p: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = dig(s, p + i);
    if (c < 0) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** One or two digits at p (sets END), else -1. */
function num12(s: string, p: number): number {
  const a = dig(s, p);
  if (a < 0) return -1;
  const b = dig(s, p + 1);
  if (b < 0) {
    END = p + 1;
    return a;
  }
  if (isDigit(s, p + 2)) return -1;
  END = p + 2;
  return a * 10 + b;
}

function digitRun(s: string, p: number): number {
  let q = p;
  while (isDigit(s, q)) q++;
  return q - p;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Three letters (any case) → 1..12, else 0. */
function monthAt(s: string, p: number): number {
  const k = ((s.charCodeAt(p) | 0x20) << 16) | ((s.charCodeAt(p + 1) | 0x20) << 8) | (s.charCodeAt(p + 2) | 0x20);
  switch (k) {
    case 0x6a616e:
      return 1; // jan
    case 0x666562:
      return 2; // feb
    case 0x6d6172:
      return 3; // mar
    case 0x617072:
      return 4; // apr
    case 0x6d6179:
      return 5; // may
    case 0x6a756e:
      return 6; // jun
    case 0x6a756c:
      return 7; // jul
    case 0x617567:
      return 8; // aug
    case 0x736570:
      return 9; // sep
    case 0x6f6374:
      return 10; // oct
    case 0x6e6f76:
      return 11; // nov
    case 0x646563:
      return 12; // dec
    default:
      return 0;
  }
}

/** Three letters (any case) naming a weekday. */
function isWeekdayAt(s: string, p: number): boolean {
  const k = ((s.charCodeAt(p) | 0x20) << 16) | ((s.charCodeAt(p + 1) | 0x20) << 8) | (s.charCodeAt(p + 2) | 0x20);
  return (
    k === 0x6d6f6e ||
    k === 0x747565 ||
    k === 0x776564 ||
    k === 0x746875 ||
    k === 0x667269 ||
    k === 0x736174 ||
    k === 0x73756e
  );
}

/** A month name (3 letters, or the full name) at p; sets END. 0 when none. */
function monthName(s: string, p: number): number {
  const m = monthAt(s, p);
  if (m === 0) return 0;
  let q = p + 3;
  while (isLetter(s, q)) q++;
  END = q;
  return m;
}

function skipSpaces(s: string, p: number): number {
  while (s.charCodeAt(p) === SPACE) p++;
  return p;
}

/**
 * HH:mm[:ss][frac] with `:` or `.` between the parts, then an optional zone. Sets H MI S US OFF END.
 * The fraction separator may be `.`, `,` or `:` (HealthApp's `22:15:29:606`).
 */
function clock(s: string, p: number): boolean {
  const h = num12(s, p);
  if (h < 0 || h > 23) return false;
  let q = END;
  const sep = s.charCodeAt(q);
  if (sep !== 58 && sep !== 46) return false; // ':' '.'
  const mi = num12(s, q + 1);
  if (mi < 0 || mi > 59) return false;
  q = END;
  let sec = 0;
  if (s.charCodeAt(q) === sep && isDigit(s, q + 1)) {
    sec = num12(s, q + 1);
    if (sec < 0 || sec > 60) return false;
    if (sec === 60) sec = 59; // leap second
    q = END;
  }
  H = h;
  MI = mi;
  S = sec;
  q = fraction(s, q);
  OFF = NaN;
  END = zone(s, q);
  return true;
}

/** Optional fraction of a second at p; sets US, returns the position after it. */
function fraction(s: string, p: number): number {
  const c = s.charCodeAt(p);
  US = 0;
  if ((c !== 46 && c !== 44 && c !== 58) || !isDigit(s, p + 1)) return p;
  let q = p + 1;
  let scale = 100_000;
  let us = 0;
  while (isDigit(s, q)) {
    if (scale >= 1) us += dig(s, q) * scale;
    scale /= 10;
    q++;
  }
  US = Math.floor(us);
  return q;
}

/** Optional zone at p: `Z`, `±hh`, `±hhmm`, `±hh:mm`, ` ±hhmm`, ` UTC`, ` GMT`, `UTC`. Sets OFF. */
function zone(s: string, p: number): number {
  const c = s.charCodeAt(p);
  if (c === 90 && !isLetter(s, p + 1)) {
    OFF = 0;
    return p + 1;
  }
  if (c === 43 || c === 45) return offset(s, p, false);
  if (c === SPACE) {
    const c1 = s.charCodeAt(p + 1);
    if (c1 === 43 || c1 === 45) return offset(s, p + 1, true);
    if (isUtcWord(s, p + 1)) {
      OFF = 0;
      return p + 4;
    }
  }
  if (isUtcWord(s, p)) {
    OFF = 0;
    return p + 3;
  }
  return p;
}

function isUtcWord(s: string, p: number): boolean {
  const k = (s.charCodeAt(p) << 16) | (s.charCodeAt(p + 1) << 8) | s.charCodeAt(p + 2);
  return (k === 0x555443 || k === 0x474d54) && !isLetter(s, p + 3); // UTC GMT
}

/** ±hh[[:]mm] at p (p at the sign). `strict`: after a space only ±hhmm counts. */
function offset(s: string, p: number, strict: boolean): number {
  const sign = s.charCodeAt(p) === 45 ? -1 : 1;
  const hh = num(s, p + 1, 2);
  if (hh < 0 || hh > 14) return strict ? p - 1 : p;
  let q = p + 3;
  let mm = 0;
  if (s.charCodeAt(q) === 58 && isDigit(s, q + 1)) {
    mm = num(s, q + 1, 2);
    q += 3;
  } else if (isDigit(s, q)) {
    mm = num(s, q, 2);
    q += 2;
  } else if (strict) return p - 1;
  if (mm < 0 || mm > 59 || isDigit(s, q)) return strict ? p - 1 : p;
  OFF = sign * (hh * 60 + mm);
  return q;
}

/** Between a date and its clock: `T`, space, `-` (BGL), `_` or `:` (`16/9/27:20:30:31`). */
function isDateTimeSep(c: number): boolean {
  return c === 84 || c === SPACE || c === 45 || c === 95 || c === 58;
}

/** Date then a separator then a clock; date-only when allowed (value parsing). */
function timeAfterDate(s: string, p: number, dateOnly: boolean): boolean {
  if (isDateTimeSep(s.charCodeAt(p)) && isDigit(s, p + 1) && clock(s, p + 1)) return true;
  if (dateOnly && !isDigit(s, p) && !isLetter(s, p)) {
    H = MI = S = US = 0;
    OFF = NaN;
    END = p;
    return true;
  }
  return false;
}

/** yyyy-MM-dd / yyyy/MM/dd / yyyy.MM.dd, then T, space, `-` (BGL), `_` or `:` and a clock. */
function yearFirst(s: string, p: number, dateOnly: boolean): boolean {
  const ds = s.charCodeAt(p + 4);
  Y = num(s, p, 4);
  const mo = num12(s, p + 5);
  if (mo < 1 || mo > 12 || s.charCodeAt(END) !== ds) return false;
  const d = num12(s, END + 1);
  if (d < 1 || d > 31) return false;
  MO = mo;
  D = d;
  return timeAfterDate(s, END, dateOnly);
}

/** yyyyMMdd then `-`, `T` or space and a clock (HealthApp `20171223-22:15:29:606`). */
function compactDate(s: string, p: number, dateOnly: boolean): boolean {
  Y = num(s, p, 4);
  MO = num(s, p + 4, 2);
  D = num(s, p + 6, 2);
  if (MO < 1 || MO > 12 || D < 1 || D > 31) return false;
  const c = s.charCodeAt(p + 8);
  if ((c === 84 || c === 32) && isDigit(s, p + 13) && !isDigit(s, p + 15)) {
    // compact clock: yyyyMMddTHHmmss
    H = num(s, p + 9, 2);
    MI = num(s, p + 11, 2);
    S = num(s, p + 13, 2);
    if (H < 0 || H > 23 || MI < 0 || MI > 59 || S < 0 || S > 59) return false;
    const q = fraction(s, p + 15);
    OFF = NaN;
    END = zone(s, q);
    return true;
  }
  return timeAfterDate(s, p + 8, dateOnly);
}

/** yyMMdd HHmmss (HDFS `081109 203615`). */
function hdfs(s: string, p: number): boolean {
  if (s.charCodeAt(p + 6) !== SPACE || digitRun(s, p + 7) !== 6) return false;
  Y = 2000 + num(s, p, 2);
  MO = num(s, p + 2, 2);
  D = num(s, p + 4, 2);
  H = num(s, p + 7, 2);
  MI = num(s, p + 9, 2);
  S = num(s, p + 11, 2);
  if (MO < 1 || MO > 12 || D < 1 || D > 31 || H > 23 || MI > 59 || S > 59) return false;
  US = 0;
  OFF = NaN;
  END = p + 13;
  return true;
}

/** dd/Mon/yyyy:HH:mm:ss ±hhmm (NCSA), dd-Mon-yyyy HH:mm:ss, dd Mon yyyy HH:mm:ss (RFC 1123). */
function dayMonthNameYear(s: string, p: number, day: number): boolean {
  const sep = s.charCodeAt(p);
  const mo = monthName(s, p + 1);
  if (mo === 0 || s.charCodeAt(END) !== sep) return false;
  const y = num(s, END + 1, 4);
  if (y < 0) return false;
  Y = y;
  MO = mo;
  D = day;
  const q = END + 5;
  const c = s.charCodeAt(q);
  return (c === 58 || c === SPACE) && clock(s, q + 1);
}

/** Formats that start with a 1-2 digit number followed by `/`, `-` or `.`. */
function smallFirst(s: string, p: number, a: number, dateOnly: boolean): boolean {
  const sep = s.charCodeAt(END);
  const q = END + 1;
  if (isLetter(s, q)) return a >= 1 && a <= 31 && dayMonthNameYear(s, END, a);
  const b = num12(s, q);
  if (b < 0) return false;
  if (s.charCodeAt(END) === sep && isDigit(s, END + 1)) {
    const r = END + 1;
    const run = digitRun(s, r);
    if (run === 4) {
      // MM/dd/yyyy, or dd/MM/yyyy when the first number cannot be a month
      Y = num(s, r, 4);
      MO = a > 12 ? b : a;
      D = a > 12 ? a : b;
    } else if (run === 2 && sep === 47) {
      // yy/MM/dd (Spark `17/06/09 20:10:40`)
      Y = 2000 + a;
      MO = b;
      D = num(s, r, 2);
    } else return false;
    if (MO < 1 || MO > 12 || D < 1 || D > 31) return false;
    return timeAfterDate(s, r + run, dateOnly);
  }
  // MM-dd HH:mm:ss (Android), MM.dd HH:mm:ss (Proxifier), MM/dd HH:mm:ss: no year
  if (sep === 47 || s.charCodeAt(END) !== SPACE || a < 1 || a > 12 || b < 1 || b > 31) return false;
  MO = a;
  D = b;
  NO_YEAR = true;
  return clock(s, END + 1);
}

/** Mon dd HH:mm:ss [yyyy] (syslog; the year is optional). */
function syslog(s: string, p: number): boolean {
  const mo = monthName(s, p);
  if (mo === 0 || s.charCodeAt(END) !== SPACE) return false;
  const d = num12(s, skipSpaces(s, END));
  if (d < 1 || d > 31 || s.charCodeAt(END) !== SPACE) return false;
  MO = mo;
  D = d;
  const q = skipSpaces(s, END);
  if (!isDigit(s, q)) {
    return false;
  }
  if (digitRun(s, q) === 4 && s.charCodeAt(q + 4) === SPACE) {
    // `May 17 2015 10:05:03`
    Y = num(s, q, 4);
    return clock(s, q + 5);
  }
  if (!clock(s, q)) return false;
  const e = END;
  const off = OFF;
  const y =
    s.charCodeAt(e) === SPACE && digitRun(s, e + 1) === 4 && !isLetter(s, e + 5) && s.charCodeAt(e + 5) !== 58
      ? num(s, e + 1, 4)
      : -1;
  if (y >= 1970 && y <= 2200) {
    Y = y;
    END = e + 5;
  } else NO_YEAR = true;
  OFF = off;
  return true;
}

/** Weekday-led: `Sun Dec 04 04:47:44 2005` (asctime), `Sun, 04 Dec 2005 04:47:44 GMT` (RFC 1123). */
function weekdayFirst(s: string, p: number): boolean {
  let q = p + 3;
  while (isLetter(s, q)) q++;
  if (s.charCodeAt(q) === 44) q++;
  if (s.charCodeAt(q) !== SPACE) return false;
  q = skipSpaces(s, q);
  if (isDigit(s, q)) {
    const d = num12(s, q);
    return d >= 1 && d <= 31 && s.charCodeAt(END) === SPACE && dayMonthNameYear(s, END, d);
  }
  if (!syslog(s, q)) return false;
  if (!NO_YEAR) return true;
  // asctime puts the year after the clock, maybe after a zone name: `... 04:47:44 UTC 2005`
  let e = END;
  if (s.charCodeAt(e) === SPACE && isUtcWord(s, e + 1)) {
    OFF = 0;
    e += 4;
  }
  if (s.charCodeAt(e) !== SPACE || digitRun(s, e + 1) !== 4) return true;
  Y = num(s, e + 1, 4);
  NO_YEAR = false;
  END = e + 5;
  return true;
}

/** Bare numbers in text count as epoch times only between 2000-01-01 and 2100-01-01. */
const EPOCH_MIN_US = 946_684_800_000_000;
const EPOCH_MAX_US = 4_102_444_800_000_000;

/** Epoch seconds (10 digits, optional fraction), ms (13), µs (16) or ns (19) ending at a delimiter. */
function epochInLine(s: string, p: number, run: number): number | undefined {
  const e = p + run;
  let us: number;
  if (run === 10) {
    us = Number(s.slice(p, e)) * 1_000_000;
    if (s.charCodeAt(e) === 46 && isDigit(s, e + 1)) {
      const q = fraction(s, e);
      us += US;
      return isDelimiter(s, q) && us >= EPOCH_MIN_US && us < EPOCH_MAX_US ? us : undefined;
    }
  } else if (run === 13) us = Number(s.slice(p, e)) * 1000;
  else if (run === 16) us = Number(s.slice(p, e));
  else if (run === 19) us = Number(s.slice(p, e - 3));
  else return undefined;
  return isDelimiter(s, e) && us >= EPOCH_MIN_US && us < EPOCH_MAX_US ? us : undefined;
}

function isDelimiter(s: string, p: number): boolean {
  if (p >= s.length) return true;
  const c = s.charCodeAt(p);
  return c === SPACE || c === TAB || c === 93 || c === 44 || c === 41 || c === 124 || c === 59 || c === 13; // ] , ) | ; \r
}

/** Tries every format that may start at p; true with the scratch state set. */
function dateAt(s: string, p: number, dateOnly: boolean): boolean {
  NO_YEAR = false;
  const c = s.charCodeAt(p);
  if (c >= 48 && c <= 57) {
    const run = digitRun(s, p);
    const next = s.charCodeAt(p + run);
    if (run === 4 && (next === 45 || next === 47 || next === 46)) return yearFirst(s, p, dateOnly);
    if (run === 8) return compactDate(s, p, dateOnly);
    if (run === 6) return hdfs(s, p);
    if (run <= 2 && (next === 47 || next === 45 || next === 46)) {
      const a = num12(s, p);
      return smallFirst(s, p, a, dateOnly);
    }
    return false;
  }
  if (isLetter(s, p)) {
    if (isWeekdayAt(s, p)) return weekdayFirst(s, p);
    return syslog(s, p);
  }
  return false;
}

/** Turns the scratch state into epoch µs, resolving a missing year and a missing zone. */
function instant(ctx: TimeContext): number {
  if (NO_YEAR) return instantNoYear(ctx);
  return toUs(Y, ctx);
}

function toUs(year: number, ctx: TimeContext): number {
  const localMs = (daysFromCivil(year, MO, D) * 86400 + H * 3600 + MI * 60 + S) * 1000;
  const utcMs = OFF === OFF ? localMs - OFF * 60_000 : ctx.zone.localToUtcMs(localMs);
  return utcMs * 1000 + US;
}

function instantNoYear(ctx: TimeContext): number {
  const limit = ctx.nowUs + FUTURE_SLACK_US;
  const nowYear = yearOfUs(ctx.nowUs);
  // early January seen just after New Year in a zone ahead of UTC: next year may still be "now"
  if (MO === 1) {
    const next = toUs(nowYear + 1, ctx);
    if (next <= limit) return next;
  }
  const t = toUs(nowYear, ctx);
  return t <= limit ? t : toUs(nowYear - 1, ctx);
}

/** The UTC year of an epoch-µs instant (civil_from_days, year only). */
function yearOfUs(us: number): number {
  const z = Math.floor(us / 86_400_000_000) + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}

function afterAssignment(s: string, p: number): boolean {
  let q = p - 1;
  while (q >= 0 && (s.charCodeAt(q) === SPACE || s.charCodeAt(q) === TAB)) q--;
  const c = s.charCodeAt(q);
  return c === 61 || c === 58;
}

/** Tries one token start (a `[` or `(` before the timestamp is skipped). */
function tokenAt(s: string, p: number, ctx: TimeContext): number | undefined {
  let q = p;
  const c = s.charCodeAt(q);
  if (c === 91 || c === 40) q++; // [ (
  MATCH_START = q;
  if (isDigit(s, q)) {
    const run = digitRun(s, q);
    if (run >= 10) {
      // a bare number after `=` or `:` is a value (`retention.ms = 2147483647`), not a time
      if (afterAssignment(s, p)) return undefined;
      const us = epochInLine(s, q, run);
      MATCH_END = q + run;
      return us !== undefined && us <= ctx.nowUs + FUTURE_SLACK_US ? us : undefined;
    }
  }
  if (!dateAt(s, q, false)) return undefined;
  MATCH_END = END;
  return instant(ctx);
}

/** The text of the timestamp the last leadingTimestamp call found in `line` (for time_original). */
export function leadingTimestampText(line: string): string {
  return line.slice(MATCH_START, MATCH_END > MATCH_START ? MATCH_END : line.length);
}

/** What a token that is not a timestamp says about the line (tokenKind). */
const FIELD = 0;
const CODE = 1;
const WORD = 2;

/**
 * WORD: letters with at least one lower-case one (`connection`, `Maintenance`, `[error]`, `Info:`),
 * maybe in `[]`/`()`, maybe ending in `:` `,` `;` `.`; CODE: the same with upper-case letters only
 * (BGL's `KERNDTLB`, `INFO`, `RTC:`); FIELD: anything else (a number, an id, a host, `-`, a file).
 */
function tokenKind(s: string, p: number, n: number): number {
  let q = p;
  let c = s.charCodeAt(q);
  if (c === 91 || c === 40) c = s.charCodeAt(++q); // [ (
  let lower = false;
  const start = q;
  for (; q < n; c = s.charCodeAt(++q)) {
    if (c >= 97 && c <= 122) lower = true;
    else if (c < 65 || c > 90) break;
  }
  if (q === start) return FIELD;
  if (c === 93 || c === 41 || c === 58 || c === 44 || c === 59 || c === 46) c = s.charCodeAt(++q); // ] ) : , ; .
  if (q < n && c !== SPACE && c !== TAB) return FIELD;
  return lower ? WORD : CODE;
}

/**
 * The event time of a text line: the first timestamp found at the start of one of its first
 * MAX_TOKENS tokens (within MAX_SCAN chars), unless the line's text has begun before it. Header
 * fields before a timestamp hold digits or signs (`-`, `134681 node-246`, `nova-api.log.1…`, an IP)
 * or are upper-case codes (BGL's `KERNDTLB`); a word (tokenKind) before any such field is the
 * start of the text, and a date after it is part of the text (`connection from … at Fri Jun 17
 * 07:07:00 2005`, a syslog message without its header). After a field, words are header columns
 * (HPC's `2286759 full partition status 1061219795`). undefined when there is none.
 */
export function leadingTimestamp(line: string, ctx: TimeContext): number | undefined {
  const n = line.length < MAX_SCAN ? line.length : MAX_SCAN;
  let p = 0;
  let afterField = false;
  for (let t = 0; t < MAX_TOKENS; t++) {
    while (p < n) {
      const c = line.charCodeAt(p);
      if (c !== SPACE && c !== TAB) break;
      p++;
    }
    if (p >= n) return undefined;
    const r = tokenAt(line, p, ctx);
    if (r !== undefined) return r;
    if (!afterField) {
      const kind = tokenKind(line, p, n);
      if (kind === WORD) return undefined;
      afterField = kind === FIELD;
    }
    while (p < n) {
      const c = line.charCodeAt(p);
      if (c === SPACE || c === TAB) break;
      p++;
    }
  }
  return undefined;
}

/** Epoch number → µs, unit by magnitude: < 1e11 s, < 1e14 ms, < 1e17 µs, else ns. */
export function epochToUs(n: number): number {
  const a = n < 0 ? -n : n;
  if (a < 1e11) return Math.round(n * 1_000_000);
  if (a < 1e14) return Math.round(n * 1000);
  if (a < 1e17) return Math.round(n);
  return Math.round(n / 1000);
}

/** A numeric string as epoch µs (ns strings keep their µs digits exactly); undefined if not numeric. */
function numericString(s: string): number | undefined {
  let p = s.charCodeAt(0) === 45 ? 1 : 0;
  const start = p;
  while (isDigit(s, p)) p++;
  const intDigits = p - start;
  if (intDigits === 0) return undefined;
  if (p < s.length) {
    if (s.charCodeAt(p) !== 46) return undefined;
    p++;
    while (isDigit(s, p)) p++;
    if (p < s.length) return undefined;
  }
  if (intDigits >= 18 && p === start + intDigits && start === 0) return Number(s.slice(0, s.length - 3));
  return epochToUs(Number(s));
}

/**
 * The instant of a field value: RFC 3339 / ISO 8601 (zone optional), epoch s/ms/µs/ns as a number
 * or numeric string, a Date, or any text format leadingTimestamp knows (at the start of the string).
 */
export function parseTimeValue(v: unknown, ctx: TimeContext): number | undefined {
  if (typeof v === 'string') return parseTimeString(v, ctx);
  if (typeof v === 'number') return Number.isFinite(v) ? epochToUs(v) : undefined;
  if (typeof v === 'bigint') return epochToUs(Number(v));
  if (v instanceof Date) {
    const ms = v.getTime();
    return Number.isNaN(ms) ? undefined : ms * 1000;
  }
  return undefined;
}

function parseTimeString(raw: string, ctx: TimeContext): number | undefined {
  const s = raw.charCodeAt(0) === SPACE || raw.charCodeAt(raw.length - 1) === SPACE ? raw.trim() : raw;
  if (s.length === 0) return undefined;
  const c = s.charCodeAt(0);
  if ((c >= 48 && c <= 57) || c === 45) {
    const n = numericString(s);
    if (n !== undefined) return n;
  }
  let p = 0;
  if (c === 91 || c === 40) p = 1;
  return dateAt(s, p, true) ? instant(ctx) : undefined;
}

/** Formats epoch µs as RFC 3339 UTC with microseconds (for messages and tests). */
export function formatUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString();
  const frac = String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
  return `${iso.slice(0, 19)}.${frac}Z`;
}
