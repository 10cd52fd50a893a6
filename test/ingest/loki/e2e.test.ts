import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import winston from 'winston';
import LokiTransport from 'winston-loki';
import { startE2E, searchEvents, E2E_ENV, type E2E } from '../helpers/e2e.js';

describe('winston-loki against a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(async () => e.close());

  for (const json of [false, true]) {
    const mode = json ? 'json' : 'protobuf';
    it(`stores ${mode} pushes, found by search with labels as fields`, async () => {
      const errors: unknown[] = [];
      const transport = new LokiTransport({
        host: e.srv.url,
        json,
        basicAuth: `svc:${e.token}`,
        labels: { app: `winston-${mode}`, index: `loki-${mode}` },
        batching: true,
        interval: 0.1,
        gracefulShutdown: false,
        onConnectionError: (err) => errors.push(err),
      });
      const logger = winston.createLogger({ transports: [transport] });
      const t0 = Date.now();
      for (let i = 0; i < 5; i++) logger.warn(`loki ${mode} line ${i}`);
      await transport.flush();
      await transport.close();
      logger.close();
      assert.deepEqual(errors, []);
      const events = await searchEvents(e.srv, e.searchKey, {
        index: `loki-${mode}`,
        from: new Date(t0 - 60_000).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
      });
      assert.equal(events.length, 5);
      for (const ev of events) {
        assert.equal(ev.env, E2E_ENV);
        assert.equal(ev.fields.app, `winston-${mode}`);
        assert.equal(ev.fields.level, 'warn');
        assert.match(ev.message, new RegExp(`loki ${mode} line \\d`));
      }
    });
  }
});
