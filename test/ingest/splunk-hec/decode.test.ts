import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { timeContext } from '../../../src/events/timestamp.js';
import { decodeEventBody, decodeRawBody, hecTimeUs } from '../../../src/ingest/splunk-hec/decode.js';
import { SvcError } from '../../../src/errors/svc-error.js';
import { hecAnswerOf } from '../../../src/ingest/splunk-hec/respond.js';
import { splitConcatenatedJson } from '../../../src/ingest/splunk-hec/split-events.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const time = timeContext('UTC', NOW);

function hecCode(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    if (e instanceof SvcError) return hecAnswerOf(e).code;
    throw e;
  }
  return -1;
}

describe('splitConcatenatedJson', () => {
  it('splits objects with no separator, whitespace between, and braces inside strings', () => {
    const r = splitConcatenatedJson('{"event":"a}{"}{"event":{"x":[1,{"y":2}]}}\n {"event":"c\\"}"}');
    assert.deepEqual(r.objects, ['{"event":"a}{"}', '{"event":{"x":[1,{"y":2}]}}', '{"event":"c\\"}"}']);
    assert.equal(r.invalidAt, undefined);
  });

  it('reports the number of the first incomplete or stray event', () => {
    assert.equal(splitConcatenatedJson('{"event":"a"}{"event":').invalidAt, 1);
    assert.equal(splitConcatenatedJson('{"event":"a"} garbage').invalidAt, 1);
  });
});

describe('decodeEventBody', () => {
  it('reads time as number or string, metadata and indexed fields', () => {
    const out = decodeEventBody(
      '{"time":"1763812800.250","host":"h","source":"s","sourcetype":"st","index":"web","event":"hello","fields":{"a":1,"b":{"c":"d"}}}{"time":1763812801,"event":{"message":"obj","n":2}}',
      { channel: 'ch' },
      time,
    );
    assert.equal(out.length, 2);
    assert.equal(out[0].index, 'web');
    assert.deepEqual(
      {
        t: out[0].event.timeUs,
        h: out[0].event.host,
        s: out[0].event.source,
        st: out[0].event.sourcetype,
        m: out[0].event.message,
      },
      { t: 1763812800250000, h: 'h', s: 's', st: 'st', m: 'hello' },
    );
    assert.deepEqual(out[0].event.fields, { a: 1, 'b.c': 'd', channel: 'ch' });
    assert.equal(out[1].event.timeUs, 1763812801000000);
    assert.equal(out[1].event.message, 'obj');
    assert.equal(out[1].event.fields.n, 2);
    assert.equal(out[1].event.sourcetype, 'httpevent');
  });

  it('takes arrival time when there is none', () => {
    assert.equal(decodeEventBody('{"event":"x"}', {}, time)[0].event.timeUs, NOW * 1000);
  });

  it("refuses bodies with Splunk's codes", () => {
    assert.equal(
      hecCode(() => decodeEventBody('', {}, time)),
      5,
    );
    assert.equal(
      hecCode(() => decodeEventBody('{"event":"a"}{"nope":1}', {}, time)),
      12,
    );
    assert.equal(
      hecCode(() => decodeEventBody('{"event":""}', {}, time)),
      13,
    );
    assert.equal(
      hecCode(() => decodeEventBody('{"event":"a"}{"event":', {}, time)),
      6,
    );
    assert.equal(
      hecCode(() => decodeEventBody('{"event":"a","time":"soon"}', {}, time)),
      6,
    );
  });

  it('converts HEC times in seconds with decimals to microseconds', () => {
    assert.equal(hecTimeUs('1700000000.123456'), 1700000000123456);
    assert.equal(hecTimeUs(1700000000), 1700000000000000);
    assert.equal(hecTimeUs('x'), undefined);
  });
});

describe('decodeRawBody', () => {
  it('makes one event per line with query metadata and a leading timestamp', () => {
    const out = decodeRawBody(
      Buffer.from('2026-11-20T10:00:00Z first line\r\n\nsecond line\n'),
      { index: 'raw', sourcetype: 'st' },
      time,
    );
    assert.equal(out.length, 2);
    assert.equal(out[0].event.timeUs, Date.parse('2026-11-20T10:00:00Z') * 1000);
    assert.equal(out[0].event.message, '2026-11-20T10:00:00Z first line');
    assert.equal(out[1].event.timeUs, NOW * 1000);
    assert.equal(out[1].index, 'raw');
    assert.equal(out[1].event.sourcetype, 'st');
  });

  it("gives a continuation line its parent's time and a date inside the text none", () => {
    const body =
      '2026-11-20T10:00:00Z failed\n\tat a.B(C.java:1)\nconnection from 1.2.3.4 (h) at Fri Jun 17 07:07:00 2005\n';
    const out = decodeRawBody(Buffer.from(body), {}, time);
    const t = Date.parse('2026-11-20T10:00:00Z') * 1000;
    assert.deepEqual(
      out.map((d) => d.event.timeUs),
      [t, t, NOW * 1000],
    );
  });

  it('reads lines as native text does: a byte-order mark is not part of the first event', () => {
    const out = decodeRawBody(Buffer.from('\ufeff2026-11-20T10:00:00Z first\r\n \t\n\u00a0\nsecond'), {}, time);
    assert.deepEqual(
      out.map((d) => d.event.message),
      ['2026-11-20T10:00:00Z first', 'second'],
    );
    assert.equal(out[0].event.timeUs, Date.parse('2026-11-20T10:00:00Z') * 1000);
  });
});
