import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.js';

describe('SVC_OTLP_GRPC_LISTEN', () => {
  it('is off when unset, takes host:port or a bare port on loopback, and names a bad value', () => {
    assert.equal(loadConfig({}).otlpGrpcListen, undefined);
    assert.deepEqual(loadConfig({ SVC_OTLP_GRPC_LISTEN: '0.0.0.0:4317' }).otlpGrpcListen, {
      host: '0.0.0.0',
      port: 4317,
    });
    assert.deepEqual(loadConfig({ SVC_OTLP_GRPC_LISTEN: '4317' }).otlpGrpcListen, { host: '127.0.0.1', port: 4317 });
    assert.deepEqual(loadConfig({ SVC_OTLP_GRPC_LISTEN: '[::1]:4317' }).otlpGrpcListen, { host: '::1', port: 4317 });
    assert.throws(() => loadConfig({ SVC_OTLP_GRPC_LISTEN: 'localhost' }), /SVC_OTLP_GRPC_LISTEN: cannot parse/);
    assert.throws(() => loadConfig({ SVC_OTLP_GRPC_LISTEN: '127.0.0.1:70000' }), /SVC_OTLP_GRPC_LISTEN/);
  });
});
