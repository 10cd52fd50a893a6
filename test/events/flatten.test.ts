import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventFromObject, type EventDefaults } from '../../src/events/flatten.js';
import { timeContext } from '../../src/events/timestamp.js';

const ctx = timeContext('UTC', Date.parse('2026-11-22T12:00:00Z'));
const D: EventDefaults = { env: 'default', index: 'main', host: 'h0', source: 's0', sourcetype: 'st0', timeUs: 42 };
const ev = (o: Record<string, unknown>, raw?: string) => eventFromObject(o, raw, D, ctx);

describe('eventFromObject', () => {
  it('takes the time from _time, @timestamp, timestamp, time, ts in that order and drops the key used', () => {
    const e = ev({ ts: 1521911747, time: '2018-03-24T17:15:47Z', '@timestamp': '2015-05-17T10:05:03Z', x: 1 });
    assert.equal(e.timeUs, Date.parse('2015-05-17T10:05:03Z') * 1000);
    assert.deepEqual(e.fields, { x: 1, time: '2018-03-24T17:15:47Z', ts: 1521911747 });
  });

  it('skips a time key that does not parse and keeps it as a renamed field when it is _time', () => {
    const e = ev({ _time: 'soon', ts: '2018-03-24T17:16:39.739898Z' });
    assert.equal(e.timeUs, Date.parse('2018-03-24T17:16:39.739Z') * 1000 + 898);
    assert.deepEqual(e.fields, { _time_user: 'soon' });
  });

  it("takes MESSAGE, Host, SOURCE, SourceType as the core values when the lower-case key is absent (syslog-ng's elasticsearch-http(), Serilog)", () => {
    const e = ev({
      PROGRAM: 'sshd',
      MESSAGE: 'check pass; user unknown',
      HOST: 'combo',
      Source: '/var/log/auth',
      SourceType: 'syslog',
    });
    assert.deepEqual(
      [e.message, e.host, e.source, e.sourcetype],
      ['check pass; user unknown', 'combo', '/var/log/auth', 'syslog'],
    );
    assert.deepEqual(e.fields, { PROGRAM: 'sshd' });
  });

  it('keeps a core key in another case as a field when the lower-case one is present (the door renames it)', () => {
    const e = ev({ message: 'p', Message: 'm1', HOST: 'h1', MESSAGE: 'm2' });
    assert.deepEqual([e.message, e.host], ['p', 'h1']);
    assert.deepEqual(e.fields, { Message: 'm1', MESSAGE: 'm2' });
  });

  it('falls back to the arrival time', () => {
    assert.equal(ev({ a: 1 }).timeUs, 42);
  });

  it('promotes message, host, source and sourcetype and leaves them out of fields', () => {
    const e = ev({ message: 'hello', host: 'web1', source: '/var/log/x', sourcetype: 'nginx', level: 'info' });
    assert.deepEqual(
      { message: e.message, host: e.host, source: e.source, sourcetype: e.sourcetype, fields: e.fields },
      { message: 'hello', host: 'web1', source: '/var/log/x', sourcetype: 'nginx', fields: { level: 'info' } },
    );
  });

  it('takes the message from msg, log or _raw when message is absent', () => {
    assert.equal(ev({ msg: 'a', log: 'b' }).message, 'a');
    assert.deepEqual(ev({ msg: 'a', log: 'b' }).fields, { log: 'b' });
    assert.equal(ev({ log: 'b' }).message, 'b');
    assert.equal(ev({ _raw: 'c' }).message, 'c');
  });

  it('uses the original line as message when there is none, so every term still matches', () => {
    const line = '{"_path":"ssh","uid":"C2MugGdsn3ZVI1wn6"}';
    assert.equal(ev(JSON.parse(line), line).message, line);
    assert.equal(ev({ a: 1 }).message, '{"a":1}');
  });

  it('takes the host from hostname or the ECS host.name', () => {
    assert.equal(ev({ hostname: 'h1' }).host, 'h1');
    const e = ev({ host: { name: 'h2', ip: '10.0.0.1' } });
    assert.equal(e.host, 'h2');
    assert.deepEqual(e.fields, { 'host.ip': '10.0.0.1' });
  });

  it('keeps the defaults when the object names no core values', () => {
    const e = ev({ a: 'x' });
    assert.deepEqual([e.env, e.index, e.host, e.source, e.sourcetype], ['default', 'main', 'h0', 's0', 'st0']);
  });

  it('flattens nested objects to dotted names, arrays to JSON text, drops nulls', () => {
    const e = ev({ a: { b: { c: 1 }, d: true }, list: [1, 'x'], n: null, 'id.orig_h': '10.0.0.227' });
    assert.deepEqual(e.fields, { 'a.b.c': 1, 'a.d': true, list: '[1,"x"]', 'id.orig_h': '10.0.0.227' });
  });

  it('renames user fields named like core columns by appending _user', () => {
    const e = ev({ env: 'prod', index: 'other', message: 'm' });
    assert.equal(e.env, 'default');
    assert.equal(e.index, 'main');
    assert.deepEqual(e.fields, { env_user: 'prod', index_user: 'other' });
  });

  it('flattens a message that is an object instead of using it as the message', () => {
    const e = ev({ message: { text: 'hi' } }, '{"message":{"text":"hi"}}');
    assert.equal(e.message, '{"message":{"text":"hi"}}');
    assert.deepEqual(e.fields, { 'message.text': 'hi' });
  });

  it('carries nothing over from one object to the next', () => {
    ev({ message: 'a', host: 'x', ts: 1521911747, env: 'e' });
    const e = ev({ b: 1 });
    assert.deepEqual([e.message, e.host, e.timeUs, e.fields], ['{"b":1}', 'h0', 42, { b: 1 }]);
  });

  it('turns scalar core values into text', () => {
    const e = ev({ host: 12, message: false });
    assert.equal(e.host, '12');
    assert.equal(e.message, 'false');
  });
});
