import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.js';

describe('session and proxy settings', () => {
  it('defaults the idle timeout to 12 hours and bounds the session lifetime at 30 days', () => {
    assert.equal(loadConfig({}).sessionIdleSecs, 43_200);
    assert.equal(loadConfig({ SVC_SESSION_TTL_HOURS: '720' }).sessionTtlHours, 720);
    assert.throws(() => loadConfig({ SVC_SESSION_TTL_HOURS: '721' }), /SVC_SESSION_TTL_HOURS/);
    assert.throws(() => loadConfig({ SVC_SESSION_TTL_HOURS: '100000000' }), /SVC_SESSION_TTL_HOURS/);
  });

  it('takes trusted proxies as addresses, CIDRs and named ranges, and names a bad entry', () => {
    assert.deepEqual(loadConfig({ SVC_TRUSTED_PROXIES: '10.0.0.5, 10.1.0.0/16 ,fd00::/8,loopback' }).trustedProxies, [
      '10.0.0.5',
      '10.1.0.0/16',
      'fd00::/8',
      'loopback',
    ]);
    assert.deepEqual(loadConfig({}).trustedProxies, []);
    for (const bad of ['10.0.0.300', '10.0.0.0/33', 'proxy.example.com', '10.0.0.0/8/1']) {
      assert.throws(
        () => loadConfig({ SVC_TRUSTED_PROXIES: bad }),
        new RegExp(`SVC_TRUSTED_PROXIES: cannot parse "${bad.replace(/[./]/g, '\\$&')}"`),
      );
    }
  });
});
