import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../../src/clock/clock.js';
import type { LogEvent } from '../../src/events/event.js';
import type { Writer, WriteOptions } from '../../src/events/writer.js';
import { SvcError } from '../../src/errors/svc-error.js';
import { createSelfLog } from '../../src/selflog/selflog.js';

/** A Writer that keeps batches in memory; `refuse` decides per call whether to reject. */
class MemoryWriter implements Writer {
  events: LogEvent[] = [];
  calls: WriteOptions[] = [];
  refuse: (() => Error | undefined) | undefined;
  async write(events: LogEvent[], opts: WriteOptions): Promise<void> {
    this.calls.push(opts);
    const err = this.refuse?.();
    if (err) throw err;
    this.events.push(...events);
  }
  queueDepth() {
    return { queued: 0, capacity: 10 };
  }
}

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-11-22T04:00:00Z');

function setup(opts: { capacity?: number; retryAfterMs?: number; node?: string } = {}) {
  const writer = new MemoryWriter();
  const selflog = createSelfLog({ writer, clock: new ManualClock(T0), log: silent, ...opts });
  return { writer, selflog };
}

describe('selflog', () => {
  it('writes a service event into _system/_svclogs without waiting on the writer queue', async () => {
    const { writer, selflog } = setup();
    selflog.service('start', { version: '0.1.0', listen: '127.0.0.1:7300' });
    await selflog.flush();
    assert.equal(writer.events.length, 1);
    const e = writer.events[0];
    assert.equal(e.env, '_system');
    assert.equal(e.index, '_svclogs');
    assert.equal(e.timeUs, T0 * 1000);
    assert.equal(e.fields.event, 'start');
    assert.equal(e.fields.level, 'info');
    assert.equal(e.fields.version, '0.1.0');
    assert.match(e.message, /^start version=0\.1\.0 listen=127\.0\.0\.1:7300$/);
    assert.deepEqual(writer.calls, [{ wait: false }]);
  });

  it('names the node in every record, so several nodes sharing _svclogs and _svcmcp can be told apart', async () => {
    const { writer, selflog } = setup({ node: 'b' });
    selflog.service('stop', { uptime_secs: 3 });
    selflog.mcpCall({
      tool: 'search',
      principalName: 'bot',
      principalId: 'k1',
      principalKind: 'api_key',
      outcome: 'ok',
      durationMs: 2,
      resultCount: 0,
      args: {},
    });
    await selflog.flush();
    assert.deepEqual(
      writer.events.map((e) => [e.index, e.fields.node]),
      [
        ['_svclogs', 'b'],
        ['_svcmcp', 'b'],
      ],
    );
  });

  it('records an MCP call in _system/_svcmcp with the key name and redacted arguments', async () => {
    const { writer, selflog } = setup();
    selflog.mcpCall({
      tool: 'search',
      principalName: 'claude-desktop',
      principalId: 'k_1',
      principalKind: 'api_key',
      args: { query: 'password=hunter2 error', env: 'prod', token: 'abc', nested: { apiKey: 'svk_abcdefgh' } },
      outcome: 'ok',
      durationMs: 12.4,
      resultCount: 7,
    });
    await selflog.flush();
    const e = writer.events[0];
    assert.equal(e.index, '_svcmcp');
    assert.equal(e.fields.key_name, 'claude-desktop');
    assert.equal(e.fields.key_id, 'k_1');
    assert.equal(e.fields.tool, 'search');
    assert.equal(e.fields.outcome, 'ok');
    assert.equal(e.fields.result_count, 7);
    assert.equal(e.fields.duration_ms, 12);
    assert.equal(e.fields['args.env'], 'prod');
    assert.equal(e.fields['args.token'], '[redacted]');
    assert.equal(e.fields['args.nested.apiKey'], '[redacted]');
    assert.equal(e.fields['args.query'], 'password=[redacted] error');
    assert.doesNotMatch(JSON.stringify(e), /hunter2|svk_abcdefgh|"abc"/);
    assert.match(e.message, /mcp search by claude-desktop/);
  });

  it('redacts secrets in service event detail', async () => {
    const { writer, selflog } = setup();
    selflog.service('credential_rejected', {
      reason: 'invalid_credentials',
      credential: 'api_key',
      path: '/mcp',
      authorization: 'Bearer svk_secretsecret',
    });
    await selflog.flush();
    assert.doesNotMatch(JSON.stringify(writer.events[0]), /svk_secret/);
    assert.equal(writer.events[0].fields.level, 'warn');
  });

  it('drops and counts records beyond its buffer instead of blocking', async () => {
    const { writer, selflog } = setup({ capacity: 3 });
    for (let i = 0; i < 5; i++) selflog.service('config_warning', { setting: `S${i}`, message: 'x' });
    assert.equal(selflog.stats().dropped, 2);
    await selflog.flush();
    assert.equal(writer.events.length, 3);
    assert.deepEqual(selflog.stats(), { queued: 0, written: 3, dropped: 2 });
  });

  it('keeps a batch the writer refused as queue_full and writes it once there is room', async () => {
    const { writer, selflog } = setup({ retryAfterMs: 20 });
    let full = true;
    writer.refuse = () =>
      full ? new SvcError('queue_full', 'writer queue is full', { retryAfterSecs: 1 }) : undefined;
    selflog.service('retention_sweep', { forced: true, deleted_blocks: 2 });
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(writer.events.length, 0);
    assert.equal(selflog.stats().queued, 1);
    full = false;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(writer.events.length, 1);
    assert.equal(selflog.stats().dropped, 0);
  });

  it('holds records while storage cannot write (disk full), writes them when it can, and logs how many it had to drop', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const writer = new MemoryWriter();
    const selflog = createSelfLog({ writer, clock: new ManualClock(T0), log, capacity: 3, storageRetryMs: 20 });
    let full = true;
    writer.refuse = () =>
      full
        ? new SvcError('storage_unavailable', 'cannot write the write-ahead log (ENOSPC: no space left on the disk)', {
            retryAfterSecs: 5,
          })
        : undefined;
    for (let i = 0; i < 3; i++) selflog.service('config_warning', { setting: `S${i}`, message: 'x' });
    await new Promise((r) => setTimeout(r, 10)); // the first write fails: the outage begins
    for (let i = 3; i < 5; i++) selflog.service('config_warning', { setting: `S${i}`, message: 'x' });
    await new Promise((r) => setTimeout(r, 40));
    assert.equal(writer.events.length, 0);
    assert.deepEqual(selflog.stats(), { queued: 3, written: 0, dropped: 2 });
    full = false;
    await new Promise((r) => setTimeout(r, 60));
    assert.deepEqual(
      writer.events.map((e) => e.fields.setting),
      ['S0', 'S1', 'S2'],
    );
    const told = lines
      .map((l) => JSON.parse(l) as { msg: string; dropped?: number })
      .find((l) => l.msg.startsWith('self-log writes again'));
    assert.equal(told?.dropped, 2);
    assert.match(told.msg, /2 records could not be held meanwhile and were dropped/);
  });

  it('never throws into the caller, even when the writer throws or the detail is odd', async () => {
    const { writer, selflog } = setup();
    writer.refuse = () => new Error('disk on fire');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.doesNotThrow(() => selflog.service('saml_login_failed', cyclic as never));
    assert.doesNotThrow(() =>
      selflog.mcpCall({
        tool: 't',
        principalName: 'n',
        principalId: 'i',
        principalKind: 'user',
        args: cyclic,
        outcome: 'error',
        durationMs: 1,
        resultCount: 0,
      }),
    );
    await selflog.flush();
    assert.equal(selflog.stats().written, 0);
    assert.equal(selflog.stats().dropped, 2);
  });

  it('accepts nothing after close and counts it as dropped', async () => {
    const { writer, selflog } = setup();
    selflog.service('stop', { reason: 'SIGTERM' });
    await selflog.close();
    selflog.service('start', { version: '1', listen: 'x' });
    assert.equal(writer.events.length, 1);
    assert.equal(selflog.stats().dropped, 1);
  });
});

describe('configWarnings', () => {
  it('warns about unencrypted control planes, open listeners and test settings, and nothing for defaults', async () => {
    const { loadConfig } = await import('../../src/config/load.js');
    const { configWarnings } = await import('../../src/selflog/config-warnings.js');
    assert.deepEqual(configWarnings(loadConfig({})), []);
    const w = configWarnings(
      loadConfig({ SVC_CONTROL_ENCRYPTION: 'off', SVC_LISTEN: '0.0.0.0:7300', SVC_TEST_HOLD_WRITER: '1' }),
    );
    assert.deepEqual(
      w.map((x) => x.setting),
      ['SVC_CONTROL_ENCRYPTION', 'SVC_LISTEN', 'SVC_TEST_HOLD_WRITER'],
    );
  });
});
