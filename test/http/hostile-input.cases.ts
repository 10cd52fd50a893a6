/**
 * The cases of the hostile-input suite (hostile-input.test.ts): what a broken shipper or an
 * attacker sends, by surface, with the status svc documents for it and a pattern the answer must
 * contain (the error naming the problem, or a per-line error naming it inside a 200).
 */

export interface Credentials {
  /** An ingest token for `env`, no index pinned. */
  ingestToken: string;
  /** An ingest token for `env` pinned to index `pinned`. */
  pinnedToken: string;
  searchKey: string;
  adminKey: string;
  mcpKey: string;
  env: string;
}

export interface HostileRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  gzip?: boolean;
}

export interface HostileCase {
  surface: 'body' | 'field-name' | 'timestamp' | 'name' | 'query' | 'auth';
  name: string;
  request: (c: Credentials) => HostileRequest;
  status: number | number[];
  /** The answer's text must match: the error message, or the per-line/per-item error of a 200. */
  names?: RegExp;
  /** Loki answers errors as text, OTLP over protobuf as a protobuf Status. */
  errorShape?: 'json' | 'text' | 'protobuf';
  /** Returns why the answer is wrong, or undefined. */
  check?: (text: string) => string | undefined;
  /** The request stores one event with the word `tsmarkzz` at the arrival time (time outside the window). */
  storedNow?: boolean;
  /** false: the time does not parse at all, so it stays a field under its own name rather than time_original. */
  keepsTimeOriginal?: boolean;
}

const NDJSON = 'application/x-ndjson';
const JSON_TYPE = 'application/json';

const native = (c: Credentials, body: string | Buffer, type = NDJSON, query = ''): HostileRequest => ({
  path: `/api/ingest${query}`,
  headers: { authorization: `Bearer ${c.ingestToken}`, 'content-type': type },
  body,
});
const bulk = (c: Credentials, body: string, path = '/_bulk'): HostileRequest => ({
  path,
  headers: { authorization: `ApiKey ${c.ingestToken}`, 'content-type': NDJSON },
  body,
});
const hec = (c: Credentials, body: string): HostileRequest => ({
  path: '/services/collector/event',
  headers: { authorization: `Splunk ${c.ingestToken}`, 'content-type': JSON_TYPE },
  body,
});
const loki = (c: Credentials, body: string): HostileRequest => ({
  path: '/loki/api/v1/push',
  headers: { authorization: `Bearer ${c.ingestToken}`, 'content-type': JSON_TYPE },
  body,
});
const otlp = (c: Credentials, body: string): HostileRequest => ({
  path: '/v1/logs',
  headers: { authorization: `Bearer ${c.ingestToken}`, 'content-type': JSON_TYPE },
  body,
});
const otlpRecords = (records: unknown[], resourceAttrs: unknown[] = []) =>
  JSON.stringify({ resourceLogs: [{ resource: { attributes: resourceAttrs }, scopeLogs: [{ logRecords: records }] }] });
const lokiStream = (stream: Record<string, string>, values: [string, string][]) =>
  JSON.stringify({ streams: [{ stream, values }] });

/** A 200 native answer whose per-line errors name the problem. */
const lineErrors = (min: number) => (text: string) => {
  const a = JSON.parse(text) as { errors?: number; firstErrors?: unknown[] };
  if (typeof a.errors !== 'number' || a.errors < min)
    return `want at least ${min} per-line errors, got ${text.slice(0, 200)}`;
  return undefined;
};
/** A 200 native answer that ingested `n` events with no error. */
const ingested = (n: number) => (text: string) => {
  const a = JSON.parse(text) as { ingested?: number; errors?: number };
  if (a.ingested !== n || a.errors !== 0) return `want ${n} ingested and no error, got ${text.slice(0, 200)}`;
  return undefined;
};
/** A `_bulk` answer with `errors: true` and at least one failed item whose status is 4xx. */
const bulkItemFailed = (text: string) => {
  const a = JSON.parse(text) as { errors?: boolean; items?: Record<string, { status: number }>[] };
  if (a.errors !== true) return `want errors:true, got ${text.slice(0, 200)}`;
  const failed = (a.items ?? []).map((i) => Object.values(i)[0]).filter((i) => i && i.status >= 400 && i.status < 500);
  return failed.length > 0 ? undefined : 'want a failed item with a 4xx status';
};
const bulkAllCreated = (text: string) => {
  const a = JSON.parse(text) as { errors?: boolean };
  return a.errors === false ? undefined : `want errors:false, got ${text.slice(0, 300)}`;
};

function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}
function deepArray(depth: number): string {
  return '['.repeat(depth) + '1' + ']'.repeat(depth);
}
function manyFields(n: number): string {
  const o: Record<string, number> = { message: 1 };
  for (let i = 0; i < n; i++) o[`f${i}`] = i;
  return JSON.stringify(o);
}

// ---------------------------------------------------------------- bodies
const BODY_CASES: HostileCase[] = [
  {
    surface: 'body',
    name: 'native: a line that is not JSON is a per-line error',
    request: (c) => native(c, '{"message":"ok"}\n{not json\n'),
    status: 200,
    names: /cannot parse JSON/,
    check: lineErrors(1),
  },
  {
    surface: 'body',
    name: 'native: a JSON array line is a per-line error',
    request: (c) => native(c, '[1,2,3]\n'),
    status: 200,
    names: /want a JSON object/,
  },
  {
    surface: 'body',
    name: 'native: a JSON string line is a per-line error',
    request: (c) => native(c, '"hello"\n'),
    status: 200,
    names: /want a JSON object/,
  },
  {
    surface: 'body',
    name: 'native: a JSON null line is a per-line error',
    request: (c) => native(c, 'null\n'),
    status: 200,
    names: /want a JSON object/,
  },
  {
    surface: 'body',
    name: 'native: a JSON number line is a per-line error',
    request: (c) => native(c, '42\n'),
    status: 200,
    names: /want a JSON object/,
  },
  {
    surface: 'body',
    name: 'native: a truncated JSON line is a per-line error',
    request: (c) => native(c, '{"message":"cut'),
    status: 200,
    names: /cannot parse JSON/,
  },
  {
    surface: 'body',
    name: 'native: an empty body ingests nothing',
    request: (c) => native(c, ''),
    status: 200,
    check: ingested(0),
  },
  {
    surface: 'body',
    name: 'native: a body of blank lines ingests nothing',
    request: (c) => native(c, '\n\n  \n\t\n'),
    status: 200,
    check: ingested(0),
  },
  {
    surface: 'body',
    name: 'native: a byte-order mark alone ingests nothing',
    request: (c) => native(c, Buffer.from([0xef, 0xbb, 0xbf])),
    status: 200,
    check: ingested(0),
  },
  {
    surface: 'body',
    name: 'native: invalid UTF-8 in a text line is kept',
    request: (c) => native(c, Buffer.from([0x61, 0xff, 0xfe, 0x62, 0x0a]), 'text/plain'),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: NUL bytes in a text line are kept',
    request: (c) => native(c, 'a\u0000b\n', 'text/plain'),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: a corrupt gzip body is refused',
    request: (c) => ({
      ...native(c, 'not gzip at all'),
      headers: { authorization: `Bearer ${c.ingestToken}`, 'content-type': NDJSON, 'content-encoding': 'gzip' },
    }),
    status: 400,
    names: /gzip|compress|decod/i,
  },
  {
    surface: 'body',
    name: 'native: an unknown content encoding is refused',
    request: (c) => ({
      ...native(c, '{}'),
      headers: { authorization: `Bearer ${c.ingestToken}`, 'content-type': NDJSON, 'content-encoding': 'x-nonsense' },
    }),
    status: [400, 415],
    names: /encoding/i,
  },
  {
    surface: 'body',
    name: 'native: a gzip bomb is refused as too large',
    request: (c) => ({
      ...native(c, gzipBomb()),
      headers: { authorization: `Bearer ${c.ingestToken}`, 'content-type': NDJSON, 'content-encoding': 'gzip' },
    }),
    status: 413,
    names: /large|limit/i,
  },
  {
    surface: 'body',
    name: 'native: JSON nested 10,000 deep is a per-line error, the rest ingested',
    request: (c) => native(c, `{"message":"ok"}\n${deepObject(10_000)}\n`),
    status: 200,
    names: /depth|deep|nest/i,
    check: lineErrors(1),
  },
  {
    surface: 'body',
    name: 'native: JSON nested 100 deep is a per-line error',
    request: (c) => native(c, `${deepObject(100)}\n{"message":"ok"}\n`),
    status: 200,
    names: /depth|deep|nest/i,
    check: lineErrors(1),
  },
  {
    surface: 'body',
    name: 'native: arrays nested 10,000 deep are a per-line error',
    request: (c) => native(c, `{"message":"ok","a":${deepArray(10_000)}}\n`),
    status: 200,
    names: /depth|deep|nest/i,
    check: lineErrors(1),
  },
  {
    surface: 'body',
    name: 'native: a JSON array body nested 10,000 deep in one item fails that item only',
    request: (c) => native(c, `[{"message":"ok"},${deepObject(10_000)}]`, JSON_TYPE),
    status: 200,
    names: /depth|deep|nest/i,
    check: lineErrors(1),
  },
  {
    surface: 'body',
    name: 'native: nesting of 20 levels is kept',
    request: (c) => native(c, `${deepObject(19)}\n`),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: an event with 5,000 fields is a per-line error naming the limit',
    request: (c) => native(c, `${manyFields(5_000)}\n{"message":"ok"}\n`),
    status: 200,
    names: /field/i,
    check: lineErrors(1),
  },
  {
    surface: 'body',
    name: 'native: an event with 900 fields is kept',
    request: (c) => native(c, `${manyFields(900)}\n`),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: a 20 MiB text line is cut to the event size limit and marked',
    request: (c) => native(c, `tsbigline ${'x'.repeat(20 * 1024 * 1024)}\n`, 'text/plain'),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: a 3 MiB JSON message is cut and marked',
    request: (c) => native(c, `${JSON.stringify({ message: 'y'.repeat(3 * 1024 * 1024) })}\n`),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: a 3 MiB field value is cut and marked',
    request: (c) => native(c, `${JSON.stringify({ message: 'm', big: 'z'.repeat(3 * 1024 * 1024) })}\n`),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: 2 MiB of control characters (6x when escaped) is cut and marked',
    request: (c) => native(c, `${JSON.stringify({ message: '\u0001'.repeat(2 * 1024 * 1024) })}\n`),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: a body over the body limit is refused with 413',
    request: (c) => native(c, Buffer.alloc(65 * 1024 * 1024, 0x61), 'text/plain'),
    status: 413,
    names: /large|limit/i,
  },
  {
    surface: 'body',
    name: 'native: a __proto__ key is kept as a field or refused per line, never "not valid JSON"',
    request: (c) => native(c, '{"message":"proto","__proto__":{"polluted":1}}\n', JSON_TYPE),
    status: 200,
    check: (t) => (/not valid JSON/i.test(t) ? 'reported as invalid JSON' : undefined),
  },
  {
    surface: 'body',
    name: 'native: a constructor.prototype key does not pollute',
    request: (c) => native(c, '{"message":"proto","constructor":{"prototype":{"polluted":1}}}\n'),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: a huge number is kept',
    request: (c) => native(c, '{"message":"n","v":1e400}\n'),
    status: 200,
    check: ingested(1),
  },
  {
    surface: 'body',
    name: 'native: a JSON body of a single scalar is a per-line error',
    request: (c) => native(c, 'true', JSON_TYPE),
    status: 200,
    names: /want a JSON object/,
  },
  {
    surface: 'body',
    name: 'native: an unterminated JSON array body is an error',
    request: (c) => native(c, '[{"message":"a"},', JSON_TYPE),
    status: 200,
    names: /cannot parse JSON/,
  },
  {
    surface: 'body',
    name: 'native: a repeated query parameter is refused',
    request: (c) => native(c, '{}', NDJSON, '?host=a&host=b'),
    status: 400,
    names: /host/,
  },
  {
    surface: 'body',
    name: '_bulk: an action line that is not JSON is refused',
    request: (c) => bulk(c, '{oops\n{"message":"a"}\n'),
    status: [200, 400],
    names: /pars|JSON|action/i,
  },
  {
    surface: 'body',
    name: '_bulk: an unknown action is refused',
    request: (c) => bulk(c, '{"explode":{}}\n{"message":"a"}\n'),
    status: [200, 400],
    names: /action|explode/i,
  },
  {
    surface: 'body',
    name: '_bulk: an action without its document is refused',
    request: (c) => bulk(c, '{"index":{}}\n'),
    status: [200, 400],
    names: /document|source|missing|action/i,
  },
  {
    surface: 'body',
    name: '_bulk: a document nested 10,000 deep fails its item, the rest created',
    request: (c) => bulk(c, `{"index":{}}\n{"message":"ok"}\n{"index":{}}\n${deepObject(10_000)}\n`),
    status: 200,
    names: /depth|deep|nest/i,
    check: bulkItemFailed,
  },
  {
    surface: 'body',
    name: '_bulk: a document with 5,000 fields fails its item',
    request: (c) => bulk(c, `{"index":{}}\n${manyFields(5_000)}\n{"index":{}}\n{"message":"ok"}\n`),
    status: 200,
    names: /field/i,
    check: bulkItemFailed,
  },
  {
    surface: 'body',
    name: '_bulk: a 3 MiB message is cut, the item created',
    request: (c) => bulk(c, `{"index":{}}\n${JSON.stringify({ message: 'q'.repeat(3 * 1024 * 1024) })}\n`),
    status: 200,
    check: bulkAllCreated,
  },
  {
    surface: 'body',
    name: '_bulk: a delete action is refused per item',
    request: (c) => bulk(c, '{"delete":{"_id":"1"}}\n'),
    status: [200, 400],
    names: /delete|not supported|action/i,
  },
  {
    surface: 'body',
    name: 'HEC: a body that is not JSON is refused',
    request: (c) => hec(c, 'not json'),
    status: 400,
    names: /Invalid data format|format/i,
  },
  {
    surface: 'body',
    name: 'HEC: an event without "event" is refused',
    request: (c) => hec(c, '{"time":1}'),
    status: 400,
    names: /event/i,
  },
  {
    surface: 'body',
    name: 'HEC: an event nested 10,000 deep is refused, not a 500',
    request: (c) => hec(c, `{"event":${deepObject(10_000)}}`),
    status: [200, 400],
    names: /depth|deep|nest|format|Success/i,
  },
  {
    surface: 'body',
    name: 'HEC: a 3 MiB event is cut and accepted',
    request: (c) => hec(c, JSON.stringify({ event: 'h'.repeat(3 * 1024 * 1024) })),
    status: 200,
    names: /Success/,
  },
  {
    surface: 'body',
    name: 'HEC: an empty body is refused',
    request: (c) => hec(c, ''),
    status: 400,
    names: /No data|data/i,
  },
  {
    surface: 'body',
    name: 'Loki: a body that is not JSON is refused',
    request: (c) => loki(c, '{nope'),
    status: 400,
    errorShape: 'text',
    names: /pars|JSON/i,
  },
  {
    surface: 'body',
    name: 'Loki: streams not an array is refused',
    request: (c) => loki(c, '{"streams":{}}'),
    status: 400,
    errorShape: 'text',
    names: /stream/i,
  },
  {
    surface: 'body',
    name: 'Loki: a value that is not a pair is refused',
    request: (c) => loki(c, '{"streams":[{"stream":{"job":"x"},"values":[["1"]]}]}'),
    status: 400,
    errorShape: 'text',
    names: /value|entr|pair/i,
  },
  {
    surface: 'body',
    name: 'Loki: a 3 MiB line is cut and accepted',
    request: (c) =>
      loki(c, lokiStream({ job: 'big' }, [[String(BigInt(Date.now()) * 1_000_000n), 'l'.repeat(3 * 1024 * 1024)]])),
    status: 204,
  },
  {
    surface: 'body',
    name: 'OTLP: resourceLogs that is not an array is refused',
    request: (c) => otlp(c, '{"resourceLogs":{}}'),
    status: 400,
    names: /resourceLogs/,
  },
  {
    surface: 'body',
    name: 'OTLP: resourceLogs a string is refused',
    request: (c) => otlp(c, '{"resourceLogs":"x"}'),
    status: 400,
    names: /resourceLogs/,
  },
  {
    surface: 'body',
    name: 'OTLP: scopeLogs not an array is refused',
    request: (c) => otlp(c, '{"resourceLogs":[{"scopeLogs":5}]}'),
    status: 400,
    names: /scopeLogs/,
  },
  {
    surface: 'body',
    name: 'OTLP: logRecords not an array is refused',
    request: (c) => otlp(c, '{"resourceLogs":[{"scopeLogs":[{"logRecords":{}}]}]}'),
    status: 400,
    names: /logRecords/,
  },
  {
    surface: 'body',
    name: 'OTLP: a body that is not JSON is refused',
    request: (c) => otlp(c, '{x'),
    status: 400,
    names: /JSON|pars/i,
  },
  {
    surface: 'body',
    name: 'OTLP: a protobuf body that is noise is refused',
    request: (c) => ({
      path: '/v1/logs',
      headers: { authorization: `Bearer ${c.ingestToken}`, 'content-type': 'application/x-protobuf' },
      body: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    }),
    status: 400,
    errorShape: 'protobuf',
  },
  {
    surface: 'body',
    name: 'OTLP: a body nested 10,000 deep in a kvlist is refused or its record rejected',
    request: (c) => otlp(c, deepKvlistRecords(3_000)),
    status: [200, 400],
    check: (t) => (t.includes('"partialSuccess":{}') ? 'a 3,000-deep body was accepted whole' : undefined),
  },
  {
    surface: 'body',
    name: 'OTLP: a 3 MiB body is cut and accepted',
    request: (c) => otlp(c, otlpRecords([{ body: { stringValue: 'o'.repeat(3 * 1024 * 1024) } }])),
    status: 200,
  },
];

function gzipBomb(): Buffer {
  // 200 MiB of zeros compresses to ~200 KiB: over the 64 MiB decompressed limit
  return Buffer.alloc(200 * 1024 * 1024);
}

/** OTLP JSON of a kvlist body nested `depth` deep, written as text (JSON.stringify would overflow the stack). */
function deepKvlistRecords(depth: number): string {
  const open = '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth);
  const close = '}]}}'.repeat(depth);
  return `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":${open}{"stringValue":"leaf"}${close}}]}]}]}`;
}

// ---------------------------------------------------------------- field names
const HOSTILE_KEYS: [string, string][] = [
  ['an empty key', ''],
  ['a key of one space', ' '],
  ['a key of 10,000 characters', 'k'.repeat(10_000)],
  ['a key with a NUL', 'a\u0000b'],
  ['a key with a newline', 'a\nb'],
  ['a key with a double quote', 'a"b'],
  ['a key with a backslash', 'a\\b'],
  ['a key of only dots', '...'],
  ['a key that is a wildcard', '*'],
  ['a key with a slash and a tilde', 'a/b~c'],
  ['a key that is a JSON path', '$.a[0]'],
  ['a key with SQL', "x'); DROP TABLE t; --"],
  ['a key that is __proto__ nested', 'x.__proto__'],
  ['a key in right-to-left script', '\u202eabc'],
  ['a key of emoji', '\u{1F4A9}'],
  ['a key with a surrogate half', '\ud800'],
  ['a key named _time holding an object', '_time'],
  ['a key named env', 'env'],
  ['a key named index', 'index'],
  ['a key named fields', 'fields'],
  ['a key named timeUs', 'timeUs'],
];

function fieldNameCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const [what, key] of HOSTILE_KEYS) {
    const value = key === '_time' ? { nested: true } : 'v';
    const doc = JSON.stringify({ message: 'fieldname', [key]: value });
    out.push({
      surface: 'field-name',
      name: `native: ${what} is stored or refused per line, never a 5xx`,
      request: (c) => native(c, `${doc}\n{"message":"ok"}\n`),
      status: 200,
      check: (t) => ((JSON.parse(t) as { ingested: number }).ingested >= 1 ? undefined : 'the good line was lost'),
    });
    out.push({
      surface: 'field-name',
      name: `_bulk: ${what} is stored or refused per item`,
      request: (c) => bulk(c, `{"index":{}}\n${doc}\n{"index":{}}\n{"message":"ok"}\n`),
      status: 200,
    });
    out.push({
      surface: 'field-name',
      name: `HEC: ${what} in fields is stored or refused`,
      request: (c) => hec(c, JSON.stringify({ event: 'fieldname', fields: { [key]: 'v' } })),
      status: [200, 400],
    });
    out.push({
      surface: 'field-name',
      name: `OTLP: ${what} as an attribute is stored`,
      request: (c) =>
        otlp(
          c,
          otlpRecords([{ body: { stringValue: 'fieldname' }, attributes: [{ key, value: { stringValue: 'v' } }] }]),
        ),
      status: [200, 400],
    });
  }
  return out;
}

// ---------------------------------------------------------------- timestamps
/** Times outside years 1-9999, or further in the future than the drift allows: arrival time used. */
const BAD_TIMES: [string, unknown][] = [
  ['1e308', 1e308],
  ['-1e308', -1e308],
  ['year 0', '0000-01-01T00:00:00Z'],
  ['the last microsecond of 9999 (rounds up)', '9999-12-31T23:59:59.9999999Z'],
  ['year 2100', '2100-01-01T00:00:00Z'],
  ['next year', `${new Date().getUTCFullYear() + 1}-06-01T00:00:00Z`],
  ['seconds far in the future', 4102444800],
  ['a negative epoch before year 1', -62200000000],
  ['epoch milliseconds of year 3000', 32503680000000],
];

function timestampCases(): HostileCase[] {
  const out: HostileCase[] = [];
  let i = 0;
  for (const [what, t] of BAD_TIMES) {
    const m = () => `tsmarkzz case${i++}`;
    const nm = m();
    out.push({
      surface: 'timestamp',
      name: `native JSON: _time ${what} takes the arrival time`,
      request: (c) => native(c, `${JSON.stringify({ _time: t, message: nm })}\n`),
      status: 200,
      check: ingested(1),
      storedNow: true,
    });
    const bm = m();
    out.push({
      surface: 'timestamp',
      name: `_bulk: @timestamp ${what} takes the arrival time`,
      request: (c) => bulk(c, `{"create":{}}\n${JSON.stringify({ '@timestamp': t, message: bm })}\n`),
      status: 200,
      check: bulkAllCreated,
      storedNow: true,
    });
    if (typeof t === 'number') {
      const hm = m();
      out.push({
        surface: 'timestamp',
        name: `HEC: time ${what} takes the arrival time`,
        request: (c) => hec(c, JSON.stringify({ time: t, event: hm })),
        status: 200,
        storedNow: true,
      });
    }
  }
  const textTimes = ['0000-01-01T00:00:00Z', '2100-01-01T00:00:00Z', '9999-12-31T23:59:59.9999999Z'];
  for (const t of textTimes) {
    const tm = m2(i++);
    out.push({
      surface: 'timestamp',
      name: `native text: a leading ${t} takes the arrival time`,
      request: (c) => native(c, `${t} ${tm}\n`, 'text/plain'),
      status: 200,
      check: ingested(1),
      storedNow: true,
    });
  }
  const lokiTimes: [string, string][] = [
    ['int64 max nanoseconds', '9223372036854775807'],
    ['year 2100 in nanoseconds', '4102444800000000000'],
  ];
  for (const [what, ns] of lokiTimes) {
    const lm = m2(i++);
    out.push({
      surface: 'timestamp',
      name: `Loki: ${what} takes the arrival time`,
      request: (c) => loki(c, lokiStream({ job: 'ts' }, [[ns, lm]])),
      status: 204,
      storedNow: true,
    });
  }
  const otlpTimes: [string, string][] = [
    ['1e40 nanoseconds', '1' + '0'.repeat(40)],
    ['int64 max nanoseconds', '9223372036854775807'],
    ['year 2100 in nanoseconds', '4102444800000000000'],
  ];
  for (const [what, ns] of otlpTimes) {
    const om = m2(i++);
    out.push({
      surface: 'timestamp',
      name: `OTLP: timeUnixNano ${what} takes the arrival time`,
      request: (c) => otlp(c, otlpRecords([{ timeUnixNano: ns, body: { stringValue: om } }])),
      status: 200,
      storedNow: true,
    });
  }
  // unparsable times are not errors either: they stay fields and the event takes the arrival time
  // a five-digit year is not a time svc reads: it stays a field under its own name, the event at its arrival
  out.push({
    surface: 'timestamp',
    name: 'native JSON: _time in year 10000 takes the arrival time',
    request: (c) => native(c, `${JSON.stringify({ _time: '10000-01-01T00:00:00Z', message: m2(i++) })}\n`),
    status: 200,
    check: ingested(1),
    storedNow: true,
    keepsTimeOriginal: false,
  });
  out.push({
    surface: 'timestamp',
    name: '_bulk: @timestamp in year 10000 takes the arrival time',
    request: (c) =>
      bulk(c, `{"create":{}}\n${JSON.stringify({ '@timestamp': '10000-01-01T00:00:00Z', message: m2(i++) })}\n`),
    status: 200,
    check: bulkAllCreated,
    storedNow: true,
    keepsTimeOriginal: false,
  });
  out.push({
    surface: 'timestamp',
    name: 'native: an unparsable _time keeps the line',
    request: (c) => native(c, '{"_time":"not a time","message":"t"}\n'),
    status: 200,
    check: ingested(1),
  });
  out.push({
    surface: 'timestamp',
    name: 'native: NaN as a string keeps the line',
    request: (c) => native(c, '{"_time":"NaN","message":"t"}\n'),
    status: 200,
    check: ingested(1),
  });
  out.push({
    surface: 'timestamp',
    name: 'native: an object _time keeps the line',
    request: (c) => native(c, '{"_time":{"a":1},"message":"t"}\n'),
    status: 200,
    check: ingested(1),
  });
  out.push({
    surface: 'timestamp',
    name: 'Loki: a negative time is refused or kept, never a 5xx',
    request: (c) => loki(c, lokiStream({ job: 'ts' }, [['-1', 'neg']])),
    status: [204, 400],
    errorShape: 'text',
  });
  out.push({
    surface: 'timestamp',
    name: 'Loki: a time that is not a number is refused',
    request: (c) => loki(c, lokiStream({ job: 'ts' }, [['soon', 'x']])),
    status: 400,
    errorShape: 'text',
    names: /time|timestamp|pars/i,
  });
  out.push({
    surface: 'timestamp',
    name: 'OTLP: a time that is not a number is refused',
    request: (c) => otlp(c, otlpRecords([{ timeUnixNano: 'soon', body: { stringValue: 'x' } }])),
    status: [200, 400],
  });
  return out;
}
const m2 = (i: number) => `tsmarkzz case${i}`;

// ---------------------------------------------------------------- env and index names
const BAD_NAMES: [string, string][] = [
  ['".."', '..'],
  ['"a/b"', 'a/b'],
  ['"../etc"', '../etc'],
  ['10,000 characters', 'n'.repeat(10_000)],
  ['65 characters', 'n'.repeat(65)],
  ['a trailing newline', 'prod\n'],
  ['a leading space', ' prod'],
  ['a NUL', 'a\u0000b'],
  ['a backslash', 'a\\b'],
  ['a reserved "_" name', '_svclogs'],
  ['a percent sign', 'a%2fb'],
  ['a colon', 'a:b'],
];

function nameCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const namePattern = /index|name|reserved/i;
  for (const [what, name] of BAD_NAMES) {
    const q = encodeURIComponent(name);
    out.push({
      surface: 'name',
      name: `native: index ${what} is refused`,
      request: (c) => native(c, '{"message":"n"}\n', NDJSON, `?index=${q}`),
      status: 400,
      names: namePattern,
    });
    out.push({
      surface: 'name',
      name: `native: env ${what} is refused`,
      request: (c) => native(c, '{"message":"n"}\n', NDJSON, `?env=${q}`),
      status: [400, 403],
      names: /env|name|reserved|denied|pinned/i,
    });
    out.push({
      surface: 'name',
      name: `_bulk: _index ${what} fails its item, the rest created`,
      request: (c) =>
        bulk(c, `{"index":{"_index":${JSON.stringify(name)}}}\n{"message":"n"}\n{"index":{}}\n{"message":"ok"}\n`),
      status: 200,
      names: namePattern,
      check: bulkItemFailed,
    });
    out.push({
      surface: 'name',
      name: `HEC: index ${what} is refused`,
      request: (c) => hec(c, JSON.stringify({ event: 'n', index: name })),
      status: 400,
      names: /index|name|reserved|Incorrect/i,
    });
    out.push({
      surface: 'name',
      name: `Loki: label index ${what} is refused`,
      request: (c) => loki(c, lokiStream({ job: 'n', index: name }, [[String(BigInt(Date.now()) * 1_000_000n), 'n']])),
      status: 400,
      errorShape: 'text',
      names: namePattern,
    });
    out.push({
      surface: 'name',
      name: `OTLP: svc.index ${what} is rejected`,
      request: (c) =>
        otlp(
          c,
          otlpRecords([
            { body: { stringValue: 'n' }, attributes: [{ key: 'svc.index', value: { stringValue: name } }] },
          ]),
        ),
      status: [200, 400],
      names: namePattern,
    });
  }
  out.push({
    surface: 'name',
    name: 'native: an empty index parameter is refused',
    request: (c) => native(c, '{"message":"n"}\n', NDJSON, '?index='),
    status: 400,
    names: /index/,
  });
  out.push({
    surface: 'name',
    name: 'native: an unknown env is refused',
    request: (c) => native(c, '{"message":"n"}\n', NDJSON, '?env=nosuchenv'),
    status: [400, 403],
    names: /environment|denied|pinned/i,
  });
  out.push({
    surface: 'name',
    name: '_bulk: an empty _index fails its item',
    request: (c) => bulk(c, '{"index":{"_index":""}}\n{"message":"n"}\n'),
    status: 200,
    check: bulkItemFailed,
  });
  out.push({
    surface: 'name',
    name: '_bulk: a path index ".." is refused',
    request: (c) => bulk(c, '{"index":{}}\n{"message":"n"}\n', '/%2e%2e/_bulk'),
    status: [200, 400, 404],
    names: /index|name|not found|Route/i,
  });
  out.push({
    surface: 'name',
    name: '_bulk: an index pinned by the token wins over _index',
    request: (c) => ({
      path: '/_bulk',
      headers: { authorization: `ApiKey ${c.pinnedToken}`, 'content-type': NDJSON },
      body: '{"index":{"_index":"other"}}\n{"message":"pin"}\n',
    }),
    status: 200,
    check: bulkAllCreated,
  });
  return out;
}

// ---------------------------------------------------------------- queries
function queryCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const deep = (n: number) => '('.repeat(n) + 'a' + ')'.repeat(n);
  const bad: [string, string, RegExp][] = [
    ['10,000 nested parentheses', deep(10_000), /nest|deep|limit/i],
    ['1,000 nested parentheses', deep(1_000), /nest|deep|limit/i],
    ['10,000 NOTs', 'NOT '.repeat(10_000) + 'a', /nest|deep|limit|NOT/i],
    ['5,000 ANDs', Array.from({ length: 5_001 }, (_, i) => `w${i}`).join(' AND '), /limit|terms|too many|nest|deep/i],
    ['an eval nested 5,000 deep', `* | eval x=${'('.repeat(5_000)}1${')'.repeat(5_000)}`, /nest|deep|limit/i],
    [
      'an eval with 5,000 chained functions',
      `* | eval x=${'abs('.repeat(5_000)}1${')'.repeat(5_000)}`,
      /nest|deep|limit/i,
    ],
    [
      'subsearches nested 500 deep',
      `${'a [search '.repeat(500)}b${']'.repeat(500)}`,
      /nest|deep|limit|subsearch|search/i,
    ],
    ['an unterminated quote', '"abc', /quote|unterminated|unexpected|missing/i],
    ['an unterminated subsearch', '* | append [search b', /missing|unexpected|\]/i],
    ['an unknown pipe', '* | frobnicate', /frobnicate|unknown/i],
    ['a pipe with no command', '* |', /missing|unexpected|command/i],
    ['an invalid regex in rex', '* | rex "(?<u>"', /regex|rex|missing|invalid/i],
    ['a regex with a backreference', '* | rex "(a)\\1"', /regex|rex|backreference|invalid/i],
    ['a negative head', '* | head -5', /head|negative|unexpected|want/i],
    ['stats with no aggregation', '* | stats by host', /stats|aggregat|missing|unexpected/i],
    ['an eval to a reserved field', '* | eval _time=', /missing|unexpected|expression/i],
    ['a where without an expression', '* | where', /missing|expression|where/i],
    ['a bare pipe', '|', /missing|unexpected|command|search/i],
    ['a query of 100,000 characters in a POST', Array.from({ length: 12_000 }, (_, i) => `w${i}`).join(' '), /.*/],
  ];
  for (const [what, q, names] of bad) {
    const status = what.includes('100,000') ? [200, 400] : [400];
    out.push({
      surface: 'query',
      name: `POST /api/search: ${what}`,
      request: (c) => ({
        path: '/api/search',
        method: 'POST',
        headers: { authorization: `Bearer ${c.searchKey}`, 'content-type': JSON_TYPE },
        body: JSON.stringify({ q, env: c.env }),
      }),
      status,
      names: status[0] === 400 ? names : undefined,
    });
    if (q.length < 4_000) {
      out.push({
        surface: 'query',
        name: `GET /api/search: ${what}`,
        request: (c) => ({
          path: `/api/search?${new URLSearchParams({ q, env: c.env })}`,
          headers: { authorization: `Bearer ${c.searchKey}` },
        }),
        status,
        names: status[0] === 400 ? names : undefined,
      });
      out.push({
        surface: 'query',
        name: `GET /api/export: ${what}`,
        request: (c) => ({
          path: `/api/export?${new URLSearchParams({ q, env: c.env, format: 'ndjson' })}`,
          headers: { authorization: `Bearer ${c.searchKey}` },
        }),
        status,
        names: status[0] === 400 ? names : undefined,
      });
      out.push({
        surface: 'query',
        name: `GET /api/histogram: ${what}`,
        request: (c) => ({
          path: `/api/histogram?${new URLSearchParams({ q, env: c.env })}`,
          headers: { authorization: `Bearer ${c.searchKey}` },
        }),
        status: [200, 400],
      });
    }
  }
  const params: [string, Record<string, string>, RegExp][] = [
    ['from after to', { from: '2024-02-01T00:00:00Z', to: '2024-01-01T00:00:00Z' }, /from|to|range|before|after/i],
    ['from that is not a time', { from: 'yesterday-ish' }, /from|time/i],
    ['a limit of -1', { limit: '-1' }, /limit/i],
    ['a limit of 10^12', { limit: '1000000000000' }, /limit/i],
    ['a limit that is not a number', { limit: 'lots' }, /limit/i],
    ['an env that does not exist', { env: 'nosuchenv' }, /nosuchenv|environment/i],
    ['an env with a path', { env: '../etc' }, /env|environment|name|denied/i],
    ['an index of 10,000 characters', { index: 'i'.repeat(10_000) }, /index|name/i],
    ['a repeated q', { q: 'a' }, /.*/],
    ['an empty index (all indexes, as an HTML form sends it)', { index: '' }, /index/i],
    ['a year-10000 to', { to: '10000-01-01T00:00:00Z' }, /to|time/i],
    ['a from of 1e308', { from: '1e308' }, /from|time/i],
  ];
  for (const [what, p, names] of params) {
    // a search of what does not exist finds nothing and says why (the specification: not an error)
    const lenient =
      what === 'a repeated q' ||
      what.startsWith('an env') ||
      what.startsWith('an index of') ||
      what.startsWith('an empty index');
    const status = lenient ? [200, 400, 403] : [400, 403];
    out.push({
      surface: 'query',
      name: `GET /api/search: ${what}`,
      request: (c) => ({
        path: `/api/search?${new URLSearchParams({ q: '*', env: c.env, ...p })}${what === 'a repeated q' ? '&q=b' : ''}`,
        headers: { authorization: `Bearer ${c.searchKey}` },
      }),
      status,
      names,
    });
    out.push({
      surface: 'query',
      name: `GET /api/export: ${what}`,
      request: (c) => ({
        path: `/api/export?${new URLSearchParams({ q: '*', env: c.env, format: 'csv', ...p })}${what === 'a repeated q' ? '&q=b' : ''}`,
        headers: { authorization: `Bearer ${c.searchKey}` },
      }),
      status,
      names: lenient ? undefined : names,
    });
  }
  out.push({
    surface: 'query',
    name: 'GET /api/search: a URL over 16 KB names POST as the way',
    request: (c) => ({
      path: `/api/search?${new URLSearchParams({ q: 'x '.repeat(20_000), env: c.env })}`,
      headers: { authorization: `Bearer ${c.searchKey}` },
    }),
    status: [414, 431],
    names: /POST/,
  });
  out.push({
    surface: 'query',
    name: 'MCP: a search tool call with arguments of the wrong type is -32602',
    request: (c) => mcpCall(c, { name: 'search', arguments: { query: 42, limit: 'many' } }),
    status: [200, 400],
    check: (t) =>
      /-32603/.test(t)
        ? 'answered as an internal error (-32603)'
        : /-32602|isError/.test(t)
          ? undefined
          : `unexpected answer ${t.slice(0, 200)}`,
  });
  out.push({
    surface: 'query',
    name: 'MCP: a search tool call with a query nested 10,000 deep is an error, not a crash',
    request: (c) => mcpCall(c, { name: 'search', arguments: { query: deep(10_000) } }),
    status: [200, 400],
    check: (t) => (/-32603/.test(t) ? 'answered as an internal error (-32603)' : undefined),
  });
  out.push({
    surface: 'query',
    name: 'MCP: a body that is not JSON-RPC is refused',
    request: (c) => ({
      path: '/mcp',
      method: 'POST',
      headers: {
        authorization: `Bearer ${c.mcpKey}`,
        'content-type': JSON_TYPE,
        accept: 'application/json, text/event-stream',
      },
      body: '{"hello":1}',
    }),
    status: [400],
    names: /jsonrpc|JSON-RPC|invalid|Parse/i,
  });
  return out;
}

function mcpCall(c: Credentials, params: unknown): HostileRequest {
  return {
    path: '/mcp',
    method: 'POST',
    headers: {
      authorization: `Bearer ${c.mcpKey}`,
      'content-type': JSON_TYPE,
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  };
}

// ---------------------------------------------------------------- credentials
const FORGED_JWT_NONE = `${b64u({ alg: 'none', typ: 'JWT' })}.${b64u({ sub: 'admin', role: 'admin', exp: 9999999999 })}.`;
const FORGED_JWT_HS = `${b64u({ alg: 'HS256', typ: 'JWT' })}.${b64u({ sub: 'admin', role: 'admin', exp: 9999999999 })}.${Buffer.from('not the signature').toString('base64url')}`;
function b64u(o: unknown): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url');
}

function authCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const creds: [string, (c: Credentials) => string | undefined][] = [
    ['no credential', () => undefined],
    ['an empty bearer', () => 'Bearer '],
    ['a bearer of garbage', () => 'Bearer garbage'],
    ['an svk_ key that does not exist', () => `Bearer svk_${'A'.repeat(43)}`],
    ['an svi_ token that does not exist', () => `Bearer svi_${'A'.repeat(43)}`],
    ['a JWT with alg none', () => `Bearer ${FORGED_JWT_NONE}`],
    ['a JWT with a forged signature', () => `Bearer ${FORGED_JWT_HS}`],
    ['Basic credentials', () => `Basic ${Buffer.from('admin:admin').toString('base64')}`],
    ['a key of 8 KB', () => `Bearer svk_${'x'.repeat(8_000)}`],
    ['a key with a trailing space', () => 'Bearer svk_abc '],
  ];
  const targets: [string, (c: Credentials) => HostileRequest, number[], string?][] = [
    ['GET /api/search', (c) => ({ path: `/api/search?q=*&env=${c.env}` }), [401]],
    ['GET /api/admin/users', () => ({ path: '/api/admin/users' }), [401]],
    [
      'POST /api/ingest',
      () => ({ path: '/api/ingest', headers: { 'content-type': NDJSON }, body: '{"message":"a"}\n' }),
      [401],
    ],
    [
      'POST /_bulk',
      () => ({ path: '/_bulk', headers: { 'content-type': NDJSON }, body: '{"index":{}}\n{"message":"a"}\n' }),
      [401],
    ],
    [
      'POST /loki/api/v1/push',
      () => ({
        path: '/loki/api/v1/push',
        headers: { 'content-type': JSON_TYPE },
        body: lokiStream({ job: 'a' }, [['1', 'a']]),
      }),
      [401],
      'text',
    ],
    [
      'POST /v1/logs',
      () => ({
        path: '/v1/logs',
        headers: { 'content-type': JSON_TYPE },
        body: otlpRecords([{ body: { stringValue: 'a' } }]),
      }),
      [401],
    ],
    [
      'POST /mcp',
      () => ({
        path: '/mcp',
        headers: { 'content-type': JSON_TYPE, accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      }),
      [401],
    ],
  ];
  for (const [cw, cred] of creds) {
    for (const [tw, target, status, shape] of targets) {
      if (cw === 'Basic credentials' && tw === 'POST /_bulk') continue; // Elasticsearch clients send Basic with an ingest token as password: covered by the _bulk tests
      out.push({
        surface: 'auth',
        name: `${tw} with ${cw} is refused`,
        request: (c) => {
          const r = target(c);
          const a = cred(c);
          return { ...r, headers: { ...(r.headers ?? {}), ...(a === undefined ? {} : { authorization: a }) } };
        },
        status,
        errorShape: shape as HostileCase['errorShape'],
      });
    }
  }
  // right credential, wrong door
  out.push({
    surface: 'auth',
    name: 'an ingest token cannot search',
    request: (c) => ({ path: `/api/search?q=*&env=${c.env}`, headers: { authorization: `Bearer ${c.ingestToken}` } }),
    status: [401, 403],
    names: /scope|ingest|denied|credential/i,
  });
  out.push({
    surface: 'auth',
    name: 'a standard key cannot call the admin API',
    request: (c) => ({ path: '/api/admin/users', headers: { authorization: `Bearer ${c.searchKey}` } }),
    status: 403,
    names: /scope|admin/i,
  });
  out.push({
    surface: 'auth',
    name: 'an MCP key cannot call the REST API',
    request: (c) => ({ path: `/api/search?q=*&env=${c.env}`, headers: { authorization: `Bearer ${c.mcpKey}` } }),
    status: 403,
    names: /scope/i,
  });
  out.push({
    surface: 'auth',
    name: 'a standard key cannot reach /mcp',
    request: (c) => ({
      path: '/mcp',
      headers: {
        authorization: `Bearer ${c.searchKey}`,
        'content-type': JSON_TYPE,
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    }),
    status: [401, 403],
  });
  out.push({
    surface: 'auth',
    name: 'an API key cannot ingest',
    request: (c) => ({
      path: '/api/ingest',
      headers: { authorization: `Bearer ${c.adminKey}`, 'content-type': NDJSON },
      body: '{"message":"a"}\n',
    }),
    status: [401, 403],
    names: /ingest|scope|token|credential/i,
  });
  out.push({
    surface: 'auth',
    name: 'a pinned token cannot name another env',
    request: (c) => native({ ...c, ingestToken: c.pinnedToken }, '{"message":"a"}\n', NDJSON, '?env=default'),
    status: [400, 403],
    names: /pinned|denied|env/i,
  });
  out.push({
    surface: 'auth',
    name: 'a login with a password of 1 MB is refused',
    request: () => ({
      path: '/api/auth/login',
      headers: { 'content-type': JSON_TYPE },
      body: JSON.stringify({ username: 'admin', password: 'p'.repeat(1_000_000) }),
    }),
    status: [400, 401, 413],
  });
  out.push({
    surface: 'auth',
    name: 'a login body that is not JSON is refused',
    request: () => ({ path: '/api/auth/login', headers: { 'content-type': JSON_TYPE }, body: '{user' }),
    status: 400,
    names: /JSON/i,
  });
  out.push({
    surface: 'auth',
    name: 'a login with extra fields is refused or ignored',
    request: () => ({
      path: '/api/auth/login',
      headers: { 'content-type': JSON_TYPE },
      body: JSON.stringify({ username: 'admin', password: 'wrong', role: 'admin', __proto__: { admin: true } }),
    }),
    status: [400, 401],
  });
  out.push({
    surface: 'auth',
    name: 'a login as a user with a NUL in the name is refused',
    request: () => ({
      path: '/api/auth/login',
      headers: { 'content-type': JSON_TYPE },
      body: JSON.stringify({ username: 'admin\u0000', password: 'x' }),
    }),
    status: [400, 401],
  });
  out.push({
    surface: 'auth',
    name: 'a cookie session from another site cannot change state',
    request: () => ({
      path: '/api/admin/envs',
      headers: { 'content-type': JSON_TYPE, origin: 'https://evil.example', cookie: 'svc_session=forged' },
      body: '{"name":"x"}',
    }),
    status: [401, 403],
  });
  return out;
}

export const HOSTILE_CASES: HostileCase[] = [
  ...BODY_CASES,
  ...fieldNameCases(),
  ...timestampCases(),
  ...nameCases(),
  ...queryCases(),
  ...authCases(),
];
