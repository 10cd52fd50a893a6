import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';

/** The JSON APIs' body parser (src/http/json-body.ts) on a real server. */
describe('JSON API bodies', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  const post = async (body: string) => {
    const res = await fetch(`${srv.url}/api/admin/envs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body,
    });
    return {
      status: res.status,
      body: (await res.json()) as { error?: { code: string; message: string }; name?: string },
    };
  };

  it('refuses a __proto__ key by name, not as invalid JSON, and pollutes nothing', async () => {
    const r = await post('{"name":"protoenv","__proto__":{"polluted":1}}');
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.error, {
      code: 'invalid_json',
      message: 'cannot accept the key "__proto__" in a JSON body',
    });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('refuses constructor.prototype nested anywhere', async () => {
    const r = await post('{"name":"protoenv","x":[{"constructor":{"prototype":{"a":1}}}]}');
    assert.equal(r.status, 400);
    assert.match(r.body.error!.message, /"constructor.prototype"/);
  });

  it('names the syntax error of malformed JSON and an empty body', async () => {
    const bad = await post('{"name":');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error!.message, /^cannot parse JSON body: /);
    const empty = await post('');
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error!.message, 'cannot parse JSON body: the body is empty');
  });

  it('still takes ordinary JSON, a key named prototype included', async () => {
    const r = await post('{"name":"prototype-env"}');
    assert.equal(r.status, 201);
    assert.equal(r.body.name, 'prototype-env');
  });
});
