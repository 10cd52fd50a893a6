import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EnvSearchCaps } from '../../src/query/env-caps.js';
import { isSvcError } from '../../src/errors/svc-error.js';
import type { EnvRecord } from '../../src/control/types.js';

/** The per-environment cap on one caller's concurrent searches (docs/limits.md). */
function capsOver(envs: EnvRecord[]): EnvSearchCaps {
  return new EnvSearchCaps({ env: (n) => envs.find((e) => e.name === n), envs: () => envs });
}
const at = '2026-01-01T00:00:00Z';
const alice = { key: 'user:u1', name: 'alice' };
const bot = { key: 'api_key:k1', name: 'ci-bot' };

describe('EnvSearchCaps', () => {
  const caps = capsOver([
    { name: 'default', createdAt: at },
    { name: 'prod', createdAt: at, maxSearchesPerUser: 2 },
  ]);

  it('refuses a caller its third search over an env capped at 2 with too_many_searches naming the env', () => {
    const r1 = caps.enter(alice, 'prod');
    const r2 = caps.enter(alice, 'prod');
    assert.throws(
      () => caps.enter(alice, 'prod'),
      (e) =>
        isSvcError(e) &&
        e.code === 'too_many_searches' &&
        e.retryAfterSecs === 1 &&
        /alice already runs 2 searches over environment "prod"/.test(e.message),
    );
    // another key is counted on its own
    const other = caps.enter(bot, 'prod');
    // a freed slot is usable again; a release called twice frees once
    r1();
    r1();
    const r3 = caps.enter(alice, 'prod');
    assert.throws(() => caps.enter(alice, 'prod'));
    for (const r of [r2, r3, other]) r();
  });

  it('counts env=* against every capped env, and leaves uncapped envs unlimited', () => {
    const held = [caps.enter(alice, 'prod'), caps.enter(alice, 'prod')];
    assert.throws(() => caps.enter(alice, '*'), /over environment "prod"/);
    const free = Array.from({ length: 10 }, () => caps.enter(alice, undefined)); // default: no cap
    for (const r of [...held, ...free]) r();
    const all = caps.enter(alice, '*');
    caps.enter(alice, 'prod');
    assert.throws(() => caps.enter(alice, 'prod'));
    all();
  });
});
