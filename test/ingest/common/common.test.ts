import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, deflateSync } from 'node:zlib';
import { decompressBody, mediaType } from '../../../src/ingest/common/body.js';
import { extractToken } from '../../../src/http-kit/ingest-token.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('extractToken', () => {
  it('reads each native auth form', () => {
    const all = ['bearer', 'apikey', 'splunk', 'basic'] as const;
    assert.deepEqual(extractToken('Bearer svi_a', all), { scheme: 'bearer', token: 'svi_a' });
    assert.deepEqual(extractToken('Splunk svi_a', all), { scheme: 'splunk', token: 'svi_a' });
    assert.deepEqual(extractToken('ApiKey svi_a', all), { scheme: 'apikey', token: 'svi_a' });
    assert.deepEqual(extractToken(`ApiKey ${b64('svc:svi_a')}`, all), { scheme: 'apikey', token: 'svi_a' });
    assert.deepEqual(extractToken(`Basic ${b64('user:svi_a')}`, all), { scheme: 'basic', token: 'svi_a' });
    assert.deepEqual(extractToken(`Basic ${b64('svi_a:')}`, all), { scheme: 'basic', token: 'svi_a' });
  });

  it('ignores schemes the protocol does not use and malformed headers', () => {
    assert.equal(extractToken('Splunk svi_a', ['bearer']), undefined);
    assert.equal(extractToken('Bearer', ['bearer']), undefined);
    assert.equal(extractToken(undefined, ['bearer']), undefined);
  });
});

describe('decompressBody', () => {
  const text = Buffer.from('hello world '.repeat(100));

  it('decompresses gzip and deflate, and gzip sent without the header', async () => {
    assert.deepEqual(await decompressBody(gzipSync(text), 'gzip', 1 << 20), text);
    assert.deepEqual(await decompressBody(deflateSync(text), 'deflate', 1 << 20), text);
    assert.deepEqual(await decompressBody(gzipSync(text), undefined, 1 << 20), text);
    assert.deepEqual(await decompressBody(text, 'identity', 1 << 20), text);
  });

  it('stops a zip bomb at the decompressed-size bound', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    assert.ok(bomb.length < 20_000);
    await assert.rejects(decompressBody(bomb, 'gzip', 1 << 20), (e: { code?: string }) => e.code === 'body_too_large');
  });

  it('refuses corrupt streams and unknown encodings as bad input', async () => {
    await assert.rejects(
      decompressBody(Buffer.from('not gzip'), 'gzip', 1 << 20),
      (e: { code?: string }) => e.code === 'invalid_input',
    );
    await assert.rejects(
      decompressBody(text, 'zstd', 1 << 20),
      (e: { code?: string }) => e.code === 'unsupported_media_type',
    );
  });

  it('reads the media type without parameters', () => {
    assert.equal(mediaType('Application/JSON; charset=utf-8'), 'application/json');
    assert.equal(mediaType(undefined), '');
  });
});
