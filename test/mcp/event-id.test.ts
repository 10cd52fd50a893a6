import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventId, parseEventId, timeWindow } from '../../src/mcp/event-id.js';
import type { EventJson } from '../../src/query/types.js';

const ev: EventJson = {
  time: '2026-11-22T04:21:27.123456Z',
  env: 'default',
  index: 'web',
  host: 'h1',
  source: 's',
  sourcetype: 'st',
  message: 'GET /x 500',
  fields: { status: 500, path: '/x' },
};

describe('event ids', () => {
  it('name env, index and time and fingerprint the content', () => {
    const id = eventId(ev);
    assert.match(id, /^default\/web\/2026-11-22T04:21:27\.123456Z\/[0-9a-f]{16}$/);
    assert.deepEqual(parseEventId(id), { env: 'default', index: 'web', time: ev.time, hash: id.slice(-16) });
  });

  it('do not depend on field order or absent fields', () => {
    assert.equal(eventId(ev), eventId({ ...ev, fields: { path: '/x', status: 500, missing: null } }));
    assert.notEqual(eventId(ev), eventId({ ...ev, message: 'GET /x 200' }));
  });

  it('refuse strings that are not ids', () => {
    for (const bad of ['', 'abc', 'default/web/yesterday/0123456789abcdef', 'default/web/2026-11-22T04:21:27Z/xyz']) {
      assert.equal(parseEventId(bad), undefined, bad);
    }
  });

  it('give a one-millisecond window around the time', () => {
    assert.deepEqual(timeWindow('2026-11-22T04:21:27.123456Z'), {
      from: '2026-11-22T04:21:27.123Z',
      to: '2026-11-22T04:21:27.124Z',
    });
    assert.deepEqual(timeWindow('2026-11-22T04:21:27Z'), {
      from: '2026-11-22T04:21:27.000Z',
      to: '2026-11-22T04:21:27.001Z',
    });
    assert.deepEqual(timeWindow('2026-11-22T05:21:27.5+01:00'), {
      from: '2026-11-22T04:21:27.500Z',
      to: '2026-11-22T04:21:27.501Z',
    });
  });
});
