import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LogEvent } from '../../src/events/event.js';
import { countWhere, openStorage, T0 } from './helpers.js';

// Field names that are JSON-path syntax: `*` (a wildcard to DuckDB even inside `$."…"`), `/` and
// `~` (JSON Pointer's own escapes), `$.`, quotes. Each must be read back live and from a block.
const NAMES: Record<string, string | number> = {
  '*': 'star',
  'a*b': 7,
  '$.x': 'dollar',
  'q"q': 'quote',
  'a/b~c': 'pointer',
  'back\\slash': 'bs',
};

function events(n: number): LogEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    timeUs: T0 + i,
    env: 'default',
    index: 'main',
    host: 'h',
    source: 's',
    sourcetype: 't',
    message: `odd ${i}`,
    fields: { ...NAMES, seq: i },
  }));
}

const ALL_MATCH = `"*" = 'star' AND "a*b" = 7 AND "$.x" = 'dollar' AND "q""q" = 'quote' AND "a/b~c" = 'pointer' AND "back\\slash" = 'bs'`;

describe('field names that are JSON-path syntax', () => {
  it('reads every one back from live data and from the sealed block', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(events(50), { wait: true });
      assert.equal(await countWhere(s.engine, ALL_MATCH), 50, 'live');
      await s.engine.flush();
      assert.equal(s.engine.stats().blockEvents, 50);
      assert.equal(await countWhere(s.engine, ALL_MATCH), 50, 'sealed');
    } finally {
      await s.close();
    }
  });
});
