import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { redact, redactString } from '../../src/selflog/redact.js';

describe('redact', () => {
  it('replaces the values of keys that name a secret', () => {
    assert.deepEqual(redact({ password: 'p', clientSecret: 's', api_key: 'k', Authorization: 'a', user: 'bob' }), {
      password: '[redacted]',
      clientSecret: '[redacted]',
      api_key: '[redacted]',
      Authorization: '[redacted]',
      user: 'bob',
    });
  });

  it('keeps fields that only mention a credential kind or a key name', () => {
    assert.deepEqual(
      redact({ credential: 'api_key', key_name: 'bot', token_id: 't_1', last_four: 'aB3d', tokens: 3 }),
      {
        credential: 'api_key',
        key_name: 'bot',
        token_id: 't_1',
        last_four: 'aB3d',
        tokens: 3,
      },
    );
    assert.deepEqual(redact({ accessToken: 'x', 'x-api-key': 'y', clientSecret: 'z' }), {
      accessToken: '[redacted]',
      'x-api-key': '[redacted]',
      clientSecret: '[redacted]',
    });
  });

  it('removes svc secrets, bearer credentials, JWTs and key=value secrets from text', () => {
    const s = redactString(
      'curl -H "Authorization: Bearer abcdefghijklmnop" svk_AbC123 svi_XyZ eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl password=hunter2 token: xyz',
    );
    assert.doesNotMatch(s, /abcdefghijklmnop|AbC123|XyZ|c2lnbmF0dXJl|hunter2|xyz/);
    assert.equal(redactString('sent Bearer abcdefghijklmnop'), 'sent Bearer [redacted]');
  });

  it('leaves ordinary queries alone', () => {
    assert.equal(redactString('status>=500 | stats count by host'), 'status>=500 | stats count by host');
  });

  it('cuts long strings and deep nesting', () => {
    assert.match(redactString('x'.repeat(3000)), /… \[1000 more characters\]$/);
    const deep = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
    assert.match(JSON.stringify(redact(deep)), /nested too deep/);
  });
});
