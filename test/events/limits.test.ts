import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LogEvent } from '../../src/events/event.js';
import { eventFromObject } from '../../src/events/flatten.js';
import { cutUtf8, deeperThan, EventLimitError, fitEvent, MAX_DEPTH } from '../../src/events/limits.js';
import { inTimeWindow, timeContext } from '../../src/events/timestamp.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const ctx = timeContext('UTC', NOW);
const defaults = { env: 'default', index: 'main', host: '', source: '', sourcetype: '', timeUs: NOW * 1000 };
const limits = { maxEventBytes: 1000, maxFields: 5, maxFutureSecs: 172_800 };

function event(message: string, fields: LogEvent['fields'] = {}): LogEvent {
  return { ...defaults, message, fields };
}

describe('event limits', () => {
  it('keeps an event within the limits as it is', () => {
    const ev = event('short', { a: 'b' });
    assert.equal(fitEvent(ev, limits), undefined);
    assert.deepEqual(ev.fields, { a: 'b' });
  });

  it('drops the CRs and LFs that end the message, keeping those inside it and other fields as they are', () => {
    const ev = event('a\rb\nc \r\n\r', { f: 'v\r\n' });
    assert.equal(fitEvent(ev, limits), undefined);
    assert.equal(ev.message, 'a\rb\nc ');
    assert.deepEqual(ev.fields, { f: 'v\r\n' });
  });

  it('renames a field name no column can carry: empty becomes empty_name, a NUL becomes U+FFFD, values kept', () => {
    const ev = event('x', { '': 'e', 'a\u0000b': 'n', ok: 1 });
    assert.equal(fitEvent(ev, limits), undefined);
    assert.deepEqual(ev.fields, { empty_name: 'e', 'a\ufffdb': 'n', ok: 1 });
  });

  it('renames a core column name in any case to <name>_user, never overwriting another field', () => {
    const ev = event('x', { HOST: 'h', Message: 'm', _TIME: 't', ENV: 'e', HOST_user: 'own' });
    assert.equal(fitEvent(ev, { ...limits, maxFields: 10 }), undefined);
    assert.deepEqual(ev.fields, {
      HOST_user: 'h',
      Message_user: 'm',
      _TIME_user: 't',
      ENV_user: 'e',
      HOST_user_user: 'own',
    });
  });

  it('drops a core-named field that only repeats its core column (a Loki label host that became the host)', () => {
    const ev = { ...event('x', { host: 'h1', Source: 'other', job: 'api' }), host: 'h1' };
    assert.equal(fitEvent(ev, limits), undefined);
    assert.deepEqual(ev.fields, { Source_user: 'other', job: 'api' });
  });

  it('refuses more fields than the limit, naming both numbers', () => {
    const ev = event('x', { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 });
    assert.equal(fitEvent(ev, limits), 'cannot store an event with 6 fields: the limit is 5 (SVC_MAX_EVENT_FIELDS)');
  });

  it('cuts the longest values first, the message among them, and records the original size', () => {
    const ev = event('m'.repeat(800), { long: 'l'.repeat(600), short: 's'.repeat(10) });
    assert.equal(fitEvent(ev, limits), undefined);
    assert.equal(ev.fields.svc_truncated, 800 + 600 + 10 + 'longshort'.length);
    assert.equal(ev.fields.short, 's'.repeat(10));
    assert.equal(ev.message.length, (ev.fields.long as string).length, 'cut to one common length');
    const size = ev.message.length + (ev.fields.long as string).length + 10 + 'longshortsvc_truncated'.length;
    assert.ok(size <= 1000, `fits: ${size}`);
  });

  it('cuts a host or source the event itself filled, as it cuts values', () => {
    const ev = { ...event('msg'), host: 'h'.repeat(5000), source: 's'.repeat(20) };
    assert.equal(fitEvent(ev, limits), undefined);
    assert.ok(Buffer.byteLength(ev.host) <= 1000 - 3 - 20 - 'svc_truncated'.length);
    assert.equal(ev.source, 's'.repeat(20));
    assert.equal(ev.fields.svc_truncated, 5023);
  });

  it('refuses an event whose field names alone are over the limit', () => {
    const ev = event('x', { ['n'.repeat(1200)]: 1 });
    assert.match(fitEvent(ev, limits) ?? '', /field names alone take 1213 bytes: the limit is 1000/);
  });

  it('cuts UTF-8 text at a character boundary', () => {
    assert.equal(cutUtf8('aé€😀', 4), 'aé');
    assert.equal(cutUtf8('aé€😀', 6), 'aé€');
    assert.equal(cutUtf8('abc', 10), 'abc');
  });

  it('counts arrays as levels of nesting', () => {
    assert.equal(deeperThan([[1]], 2), false);
    assert.equal(deeperThan([[[1]]], 2), true);
    assert.equal(deeperThan({ a: { b: {} } }, 2), true);
  });

  it('refuses an object nested past the depth limit without overflowing the stack', () => {
    const deep = JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)) as Record<string, unknown>;
    assert.throws(() => eventFromObject(deep, undefined, defaults, ctx), EventLimitError);
    const arr = JSON.parse(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) as Record<string, unknown>;
    assert.throws(() => eventFromObject(arr, undefined, defaults, ctx), /nested deeper than 20 levels/);
    const msg = JSON.parse(`{"message":${'['.repeat(1000)}${']'.repeat(1000)}}`) as Record<string, unknown>;
    assert.throws(() => eventFromObject(msg, undefined, defaults, ctx), EventLimitError);
  });

  it('accepts exactly MAX_DEPTH levels', () => {
    let o: unknown = 1;
    for (let i = 0; i < MAX_DEPTH; i++) o = { a: o };
    const ev = eventFromObject(o as Record<string, unknown>, undefined, defaults, ctx);
    assert.equal(ev.fields[Array(MAX_DEPTH).fill('a').join('.')], 1);
  });

  it('keeps a __proto__ key as an own field and pollutes no prototype', () => {
    const ev = eventFromObject(
      JSON.parse('{"__proto__":"yes","a":{"__proto__":{"polluted":1}}}') as Record<string, unknown>,
      undefined,
      defaults,
      ctx,
    );
    assert.equal(Object.getOwnPropertyDescriptor(ev.fields, '__proto__')?.value, 'yes');
    assert.equal(ev.fields['a.__proto__.polluted'], 1);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('event time window', () => {
  const t = (v: unknown) => eventFromObject({ message: 'x', _time: v }, undefined, defaults, ctx);

  it('uses a time inside years 1-9999 and not past now + the drift', () => {
    assert.equal(t('2026-11-23T12:00:00Z').timeUs, Date.UTC(2026, 10, 23, 12) * 1000);
    assert.equal(t('0001-01-01T00:00:00Z').fields.time_original, undefined);
  });

  for (const [what, v] of [
    ['1e308', 1e308],
    ['year 0', '0000-01-01T00:00:00Z'],
    ['a time that rounds to year 10000', '9999-12-31T23:59:59.999999Z'],
    ['the year 2100', '2100-01-01T00:00:00Z'],
    ['three days ahead', '2026-11-25T12:00:01Z'],
    ['int64 max nanoseconds', '9223372036854775807'],
  ] as const) {
    it(`takes the arrival time for ${what} and keeps the original in time_original`, () => {
      const ev = t(v);
      assert.equal(ev.timeUs, NOW * 1000);
      assert.equal(ev.fields.time_original, v);
      assert.equal(ev.fields._time_user, undefined);
    });
  }

  it('follows the configured drift', () => {
    const tight = timeContext('UTC', NOW, 60);
    assert.equal(inTimeWindow((NOW + 61_000) * 1000, tight), false);
    assert.equal(inTimeWindow((NOW + 59_000) * 1000, tight), true);
  });
});
