import { addUnique, setField, type FieldValue, type LogEvent } from './event.js';
import { depthError, eventTime, jsonText, MAX_DEPTH } from './limits.js';
import { parseTimeValue, type TimeContext } from './timestamp.js';

/**
 * JSON object → canonical LogEvent (docs/decisions/0006-canonical-event.md). Used by native NDJSON ingest and the
 * Elasticsearch / Splunk HEC adapters.
 *
 * Rules:
 * - time: the first of `_time`, `@timestamp`, `timestamp`, `time`, `ts` whose value parses
 *   (parseTimeValue), else the caller's arrival time. The key it came from is dropped from fields
 *   (its value is the event's `_time`); the other candidates stay fields. A time outside the window
 *   (limits.ts eventTime) gives the arrival time and is kept as `time_original`.
 * - depth: a value nested deeper than MAX_DEPTH (objects and arrays alike) throws EventLimitError;
 *   nothing here recurses further, and JSON.stringify only sees values already bounded.
 * - message: `message`, else `msg`, `log`, `_raw` (first that is present and not an object); when
 *   none, the original JSON line (`raw`, or JSON.stringify of the object) so every term still matches,
 *   like Splunk's _raw. host: `host` (a scalar), else `hostname`, else `host.name` (ECS);
 *   source: `source`; sourcetype: `sourcetype`. Missing ones take the caller's defaults.
 *   A key promoted to a core column leaves fields.
 * - nested objects flatten to dotted names (`{"a":{"b":1}}` → `a.b`); arrays become JSON text;
 *   null values are dropped; strings, finite numbers and booleans are kept as they are.
 * - a name met twice (`{"a":{"b":1},"a.b":2}`, or a decoder's own field beside the event's) keeps
 *   the first value; the next is `<name>_2`, `<name>_3`… (event.ts addUnique): no value is lost.
 * - collisions: a user field left over with a core name (`_time`, `env`, `index`, `host`, `source`,
 *   `sourcetype`, `message`: e.g. an `env` key, or a `_time` that did not parse) is renamed by
 *   appending `_user` (`env` → `env_user`), so it can never overwrite the event's own env/index.
 */

export interface EventDefaults {
  env: string;
  index: string;
  host: string;
  source: string;
  sourcetype: string;
  /** Arrival time (epoch µs) for events that carry no time. */
  timeUs: number;
}

export const TIME_KEYS = ['_time', '@timestamp', 'timestamp', 'time', 'ts'] as const;
const COLLISION_SUFFIX = '_user';

/**
 * Adds `value` under `name`, flattening objects to dotted names and arrays to JSON text; a name the
 * fields already have keeps its value and this one is added as `<name>_2`… (addUnique). `depth`
 * is the level `value` sits at (1: a key of the event's top object). `fresh`: the caller knows no
 * field is named `name` yet (skips the check). Throws EventLimitError for a value nested past MAX_DEPTH.
 */
export function addField(
  fields: Record<string, FieldValue>,
  name: string,
  value: unknown,
  depth = 1,
  fresh = false,
): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      putField(fields, name, value, fresh);
      return;
    case 'number':
      if (Number.isFinite(value)) putField(fields, name, value, fresh);
      return;
    case 'bigint':
      putField(fields, name, value.toString(), fresh);
      return;
    case 'object':
      if (value === null) return;
      if (Array.isArray(value)) {
        putField(fields, name, jsonText(value, depth), fresh);
        return;
      }
      if (depth >= MAX_DEPTH) throw depthError();
      for (const k in value as Record<string, unknown>)
        addField(fields, `${name}.${k}`, (value as Record<string, unknown>)[k], depth + 1);
      return;
    default:
      return;
  }
}

function putField(fields: Record<string, FieldValue>, name: string, value: FieldValue, fresh: boolean): void {
  if (fresh) setField(fields, name, value);
  else addUnique(fields, name, value);
}

function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return jsonText(v, 1);
  return undefined;
}

/**
 * Values of the keys with a core meaning, gathered in one pass. Plain slots instead of a map:
 * this runs once per JSON event on the ingest hot path.
 */
class Specials {
  time: unknown[] = [undefined, undefined, undefined, undefined, undefined]; // TIME_KEYS order
  message: unknown = undefined;
  msg: unknown = undefined;
  log: unknown = undefined;
  raw: unknown = undefined;
  host: unknown = undefined;
  hostname: unknown = undefined;
  source: unknown = undefined;
  sourcetype: unknown = undefined;
  env: unknown = undefined;
  index: unknown = undefined;
  /** The first key naming message, host, source or sourcetype in another case (`MESSAGE`, `Host`), and its value. */
  otherCase: {
    message?: [string, unknown];
    host?: [string, unknown];
    source?: [string, unknown];
    sourcetype?: [string, unknown];
  } = {};
  any = false;

  reset(): this {
    if (!this.any) return this;
    this.time.fill(undefined);
    this.message = this.msg = this.log = this.raw = undefined;
    this.host = this.hostname = this.source = this.sourcetype = this.env = this.index = undefined;
    this.otherCase = {};
    this.any = false;
    return this;
  }

  /** Keeps `v` if `k` is special and `v` is not a plain object; false to flatten it as a field. */
  take(k: string, v: unknown): boolean {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return false;
    switch (k) {
      case '_time':
        this.time[0] = v;
        break;
      case '@timestamp':
        this.time[1] = v;
        break;
      case 'timestamp':
        this.time[2] = v;
        break;
      case 'time':
        this.time[3] = v;
        break;
      case 'ts':
        this.time[4] = v;
        break;
      case 'message':
        this.message = v;
        break;
      case 'msg':
        this.msg = v;
        break;
      case 'log':
        this.log = v;
        break;
      case '_raw':
        this.raw = v;
        break;
      case 'host':
        this.host = v;
        break;
      case 'hostname':
        this.hostname = v;
        break;
      case 'source':
        this.source = v;
        break;
      case 'sourcetype':
        this.sourcetype = v;
        break;
      case 'env':
        this.env = v;
        break;
      case 'index':
        this.index = v;
        break;
      default:
        return this.takeOtherCase(k, v);
    }
    this.any = true;
    return true;
  }

  /**
   * `MESSAGE`, `Message`, `HOST`, `Source`… as syslog-ng's elasticsearch-http() and Serilog send them:
   * kept aside to stand for the core value when the lower-case key is absent. Fast path: only keys
   * of a core name's length starting with its letter are lower-cased.
   */
  private takeOtherCase(k: string, v: unknown): boolean {
    const n = k.length;
    if (n !== 4 && n !== 6 && n !== 7 && n !== 10) return false;
    const c = k.charCodeAt(0) | 0x20; // ASCII lower case
    if (c !== 0x68 && c !== 0x73 && c !== 0x6d) return false; // h, s, m
    const lower = k.toLowerCase();
    if (lower !== 'message' && lower !== 'host' && lower !== 'source' && lower !== 'sourcetype') return false;
    if (this.otherCase[lower] !== undefined) return false;
    this.otherCase[lower] = [k, v];
    this.any = true;
    return true;
  }
}

/** One instance, reset per call: eventFromObject is synchronous and never re-entered. */
const SPECIALS = new Specials();

/**
 * Builds the event of one JSON object. `raw` is its original text (the NDJSON line) if the caller
 * has it; it becomes the message of objects without a message field.
 */
export function eventFromObject(
  obj: Record<string, unknown>,
  raw: string | undefined,
  d: EventDefaults,
  ctx: TimeContext,
): LogEvent {
  const fields: Record<string, FieldValue> = {};
  const sp = SPECIALS.reset();
  let nested = false;
  for (const k in obj) {
    const v = obj[k];
    if (sp.take(k, v)) continue;
    // fast path: the object's own keys are unique, so a name can meet another only once flattening
    // has made one; until the first nested object no key is checked (each check cost ~25 % of this
    // function on the real data set's JSON lines)
    if (nested) addField(fields, k, v);
    else {
      addField(fields, k, v, 1, true);
      nested = typeof v === 'object' && v !== null && !Array.isArray(v);
    }
  }
  let timeUs: number | undefined;
  if (sp.any) {
    // time: the first candidate that parses leaves fields; the others stay
    for (let i = 0; i < TIME_KEYS.length; i++) {
      const v = sp.time[i];
      if (v === undefined || v === null) continue;
      if (timeUs === undefined) {
        const t = parseTimeValue(v, ctx);
        if (t !== undefined) {
          timeUs = eventTime(t, v as FieldValue, d.timeUs, ctx, fields);
          continue;
        }
      }
      addField(fields, TIME_KEYS[i] === '_time' ? '_time' + COLLISION_SUFFIX : TIME_KEYS[i], v);
    }
  }
  let message = promoted(fields, 'message', sp.message);
  message = otherCase(fields, message, sp.otherCase.message);
  message = alias(fields, message, 'msg', sp.msg);
  message = alias(fields, message, 'log', sp.log);
  message = alias(fields, message, '_raw', sp.raw);
  let host = promoted(fields, 'host', sp.host);
  host = otherCase(fields, host, sp.otherCase.host);
  host = alias(fields, host, 'hostname', sp.hostname);
  if (host === undefined) host = takeFlat(fields, 'host.name');
  const source = otherCase(fields, promoted(fields, 'source', sp.source), sp.otherCase.source);
  const sourcetype = otherCase(fields, promoted(fields, 'sourcetype', sp.sourcetype), sp.otherCase.sourcetype);
  if (sp.env !== undefined) addField(fields, 'env' + COLLISION_SUFFIX, sp.env);
  if (sp.index !== undefined) addField(fields, 'index' + COLLISION_SUFFIX, sp.index);
  return {
    timeUs: timeUs ?? d.timeUs,
    env: d.env,
    index: d.index,
    host: host ?? d.host,
    source: source ?? d.source,
    sourcetype: sourcetype ?? d.sourcetype,
    message: message ?? raw ?? JSON.stringify(obj),
    fields,
  };
}

/** A core key in another case (`MESSAGE`): an alias under its own name (the door renames it if it stays a field, limits.ts). */
function otherCase(
  fields: Record<string, FieldValue>,
  found: string | undefined,
  kv: [string, unknown] | undefined,
): string | undefined {
  return kv === undefined ? found : alias(fields, found, kv[0], kv[1]);
}

/**
 * An alias of a core value (msg, log, _raw, hostname): supplies the value when none was found yet
 * and it is a scalar; otherwise it stays a field under its own name.
 */
function alias(
  fields: Record<string, FieldValue>,
  found: string | undefined,
  name: string,
  v: unknown,
): string | undefined {
  if (v === undefined) return found;
  if (found === undefined) {
    const t = scalarText(v);
    if (t !== undefined) return t;
  }
  addField(fields, name, v);
  return found;
}

/** A core key (message, host, source, sourcetype): its scalar value, or a renamed field when it is not usable. */
function promoted(fields: Record<string, FieldValue>, name: string, v: unknown): string | undefined {
  const t = scalarText(v);
  if (t === undefined && v !== undefined) addField(fields, name + COLLISION_SUFFIX, v);
  return t;
}

function takeFlat(fields: Record<string, FieldValue>, name: string): string | undefined {
  const v = fields[name];
  if (v === undefined) return undefined;
  delete fields[name];
  return String(v);
}
