import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJson, decodeNdjson, decodeText } from '../../../src/ingest/native/decode.js';
import type { EventDefaults } from '../../../src/events/flatten.js';
import { timeContext } from '../../../src/events/timestamp.js';

const ctx = timeContext('UTC', Date.parse('2026-11-22T12:00:00Z'));
const D: EventDefaults = { env: 'default', index: 'main', host: '', source: 'f.log', sourcetype: '', timeUs: 7 };
const buf = (s: string) => Buffer.from(s, 'utf8');

describe('decodeText', () => {
  it('makes one event per line with CRLF and no final newline', () => {
    const r = decodeText(buf('a\r\nb\r\nc'), D, ctx);
    assert.deepEqual(
      r.events.map((e) => e.message),
      ['a', 'b', 'c'],
    );
    assert.equal(r.errors, 0);
  });

  it('skips empty and blank lines, and a UTF-8 BOM', () => {
    const r = decodeText(buf('\ufeffa\n\n  \t\nb\n\r\n'), D, ctx);
    assert.deepEqual(
      r.events.map((e) => e.message),
      ['a', 'b'],
    );
  });

  it('takes the time from the start of the line, and continuation lines inherit it', () => {
    const body =
      '[2016-12-19 20:39:48,918] WARN fetch failed\njava.io.IOException: disconnected\n\tat kafka.x(y.scala:115)\n[2016-12-19 20:40:00,000] INFO ok\n';
    const r = decodeText(buf(body), D, ctx);
    const t1 = Date.parse('2016-12-19T20:39:48.918Z') * 1000;
    assert.deepEqual(
      r.events.map((e) => e.timeUs),
      [t1, t1, t1, Date.parse('2016-12-19T20:40:00Z') * 1000],
    );
  });

  it("gives a line that starts a new record without a time the arrival time, not its neighbour's", () => {
    const body =
      '[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok\nsession opened for user root by (uid=0)\n\tat after.Arrival(X.java:1)\n';
    assert.deepEqual(
      decodeText(buf(body), D, ctx).events.map((e) => e.timeUs),
      [Date.parse('2005-12-04T04:47:44Z') * 1000, 7, 7],
    );
  });

  it('uses the arrival time before the first timestamped line', () => {
    assert.equal(decodeText(buf('no time here\n'), D, ctx).events[0].timeUs, 7);
  });

  it('keeps env, index and the request defaults on every event', () => {
    const e = decodeText(buf('x'), D, ctx).events[0];
    assert.deepEqual([e.env, e.index, e.source, e.fields], ['default', 'main', 'f.log', {}]);
  });

  it('decodes multi-byte UTF-8', () => {
    assert.equal(decodeText(buf('größe 😀\n'), D, ctx).events[0].message, 'größe 😀');
  });
});

describe('decodeNdjson', () => {
  it('decodes one object per line with CRLF and no final newline', () => {
    const r = decodeNdjson(buf('{"message":"a","n":1}\r\n{"message":"b"}'), D, ctx);
    assert.deepEqual(
      r.events.map((e) => e.message),
      ['a', 'b'],
    );
    assert.deepEqual(r.events[0].fields, { n: 1 });
  });

  it('counts malformed lines in errors with their line numbers and does not ingest them', () => {
    const r = decodeNdjson(buf('{"a":1}\n{broken\n\n[1,2]\n"str"\n{"b":2}\n'), D, ctx);
    assert.equal(r.events.length, 2);
    assert.equal(r.errors, 3);
    assert.deepEqual(
      r.firstErrors.map((e) => e.line),
      [2, 4, 5],
    );
    assert.match(r.firstErrors[0].message, /^cannot parse JSON: /);
    assert.match(r.firstErrors[1].message, /^unexpected array \[1,2\], want a JSON object$/);
  });

  it('keeps only the first 10 errors but counts them all', () => {
    const r = decodeNdjson(buf('x\n'.repeat(25)), D, ctx);
    assert.equal(r.errors, 25);
    assert.equal(r.firstErrors.length, 10);
  });

  it('takes the time of each object from its time fields', () => {
    const r = decodeNdjson(buf('{"ts":"2018-03-24T17:16:39.739898Z","_path":"ssh"}\n'), D, ctx);
    assert.equal(r.events[0].timeUs, Date.parse('2018-03-24T17:16:39.739Z') * 1000 + 898);
    assert.equal(r.events[0].message, '{"ts":"2018-03-24T17:16:39.739898Z","_path":"ssh"}');
  });
});

describe('decodeJson', () => {
  it('decodes an array of objects, errors naming the item', () => {
    const r = decodeJson(buf('[{"message":"a"}, 3, {"message":"b"}]'), D, ctx);
    assert.deepEqual(
      r.events.map((e) => e.message),
      ['a', 'b'],
    );
    assert.deepEqual(r.firstErrors, [{ line: 2, message: 'unexpected number, want a JSON object' }]);
  });

  it('decodes a single object or NDJSON', () => {
    assert.equal(decodeJson(buf('{"message":"a"}'), D, ctx).events.length, 1);
    assert.equal(decodeJson(buf('{"message":"a"}\n{"message":"b"}\n'), D, ctx).events.length, 2);
  });

  it('decodes a pretty-printed object as one event', () => {
    const r = decodeJson(buf('{\n  "message": "pretty",\n  "a": {\n    "b": 1\n  }\n}\n'), D, ctx);
    assert.deepEqual(
      [r.errors, r.events.length, r.events[0]?.message, r.events[0]?.fields],
      [0, 1, 'pretty', { 'a.b': 1 }],
    );
  });

  it('counts the malformed lines of NDJSON sent as application/json', () => {
    const r = decodeJson(buf('{"message":"a"}\nnope\n{"message":"b"}\n'), D, ctx);
    assert.deepEqual([r.events.length, r.errors], [2, 1]);
  });

  it('reports an unparsable array as one error', () => {
    const r = decodeJson(buf('[{"a":1},'), D, ctx);
    assert.equal(r.events.length, 0);
    assert.equal(r.errors, 1);
  });
});
