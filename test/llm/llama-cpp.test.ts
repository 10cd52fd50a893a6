import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { OutboundClient } from '../../src/outbound/client.js';
import { NO_ALLOW } from '../../src/outbound/allow-list.js';
import { LlmProvider } from '../../src/llm/provider.js';
import { loadConfig } from '../../src/config/load.js';
import { NULL_SELFLOG } from '../../src/selflog/types.js';
import { SEVERITIES, VERDICT_SCHEMA } from '../../src/monitors/ai-condition.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createIngestToken } from '../helpers/auth.js';

/**
 * svc's provider against the real llama.cpp runtime (node-llama-cpp's prebuilt CPU binary from
 * npm) serving a tiny random-weight model through an OpenAI-compatible endpoint
 * (test/fixtures/llm/, set up by `.ci/run` with setup.sh): the wire format, JSON-schema output and
 * forced tool calls, then a whole AI monitor run. The model's words are noise; the shapes are real.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = resolve(ROOT, process.env.SVC_TEST_LLM_DIR ?? '.cache/llm');
const skip =
  existsSync(join(DIR, 'tiny.gguf')) && existsSync(join(DIR, 'node_modules/node-llama-cpp'))
    ? false
    : `skipped: no llama.cpp fixture in ${DIR} (bash test/fixtures/llm/setup.sh)`;
if (skip) console.log(`# ${skip}`);

describe('LLM provider on llama.cpp', { skip }, () => {
  let child: ChildProcess;
  let url = '';

  before(async () => {
    child = spawn(process.execPath, ['llama-server.mjs'], {
      cwd: DIR,
      env: { ...process.env, MODEL: 'tiny.gguf', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    url = await new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`the llama.cpp server did not start in 60 s: ${out}`)), 60_000);
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening (\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          ok(m[1]);
        }
      });
      child.on('exit', (code) => fail(new Error(`the llama.cpp server exited (${code}): ${out}`)));
    });
  });
  after(() => {
    child?.kill();
  });

  const provider = () =>
    new LlmProvider(
      loadConfig({ SVC_LLM_URL: url, SVC_LLM_MODEL: 'tiny', SVC_LLM_TIMEOUT_SECS: '120', SVC_LLM_MAX_RETRIES: '0' })
        .llm,
      NULL_SELFLOG,
      Date.now,
      new OutboundClient(NO_ALLOW),
    );

  it('answers JSON of the monitor verdict schema', async () => {
    const verdict = z
      .object({
        triggered: z.boolean(),
        severity: z.enum(SEVERITIES),
        summary: z.string().max(200),
        evidence: z.array(z.string().max(150)).max(3),
      })
      .strict();
    const v = await provider().chatJson(
      {
        feature: 'monitor',
        messages: [{ role: 'user', content: 'Condition: errors spike. Rows: {"message":"error 1"}' }],
        jsonSchema: { name: 'monitor_verdict', schema: VERDICT_SCHEMA },
        maxTokens: 1000,
      },
      verdict,
    );
    assert.equal(typeof v.triggered, 'boolean');
    assert.ok(SEVERITIES.includes(v.severity));
  });

  it("makes a forced tool call with arguments of the tool's schema", async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'search_logs',
          description: 'Search the logs',
          parameters: {
            type: 'object',
            properties: { query: { type: 'string', maxLength: 30 } },
            required: ['query'],
            additionalProperties: false,
          },
        },
      },
    ];
    const a = await provider().chat({
      feature: 'agent',
      messages: [{ role: 'user', content: 'find the failed logins' }],
      tools,
      toolChoice: 'required',
      maxTokens: 200,
    });
    assert.equal(a.toolCalls.length, 1);
    assert.equal(a.toolCalls[0].name, 'search_logs');
    const args = JSON.parse(a.toolCalls[0].arguments) as { query: unknown };
    assert.equal(typeof args.query, 'string');
    assert.ok((args.query as string).length <= 30);
    assert.ok(a.totalTokens > 0, 'usage is counted');
  });

  it('runs an AI monitor through it end to end', async () => {
    let srv: TestServer | undefined;
    try {
      srv = await startTestServer({ SVC_LLM_URL: url, SVC_LLM_MODEL: 'tiny', SVC_LLM_TIMEOUT_SECS: '120' });
      const admin = await adminToken(srv);
      const token = await createIngestToken(srv, { env: 'default' });
      const body = Array.from({ length: 5 }, (_, i) =>
        JSON.stringify({ time: new Date(Date.now() - 30_000 + i).toISOString(), message: `error ${i}` }),
      ).join('\n');
      assert.equal(
        (
          await fetch(`${srv.url}/api/ingest`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
            body,
          })
        ).status,
        200,
      );
      const m = (await call(srv, 'POST', '/api/monitors', {
        token: admin,
        body: {
          name: 'ai',
          query: 'error',
          env: 'default',
          every: '5m',
          condition: { ai: 'errors appear', maxRows: 5 },
        },
        expect: 201,
      })) as { id: string };
      const r = (await call(srv, 'POST', `/api/monitors/${m.id}/run`, { token: admin, expect: 200 })) as {
        outcome: string;
        ai?: { severity: string };
        error?: unknown;
      };
      assert.equal(r.outcome, 'ok', JSON.stringify(r.error));
      assert.ok(SEVERITIES.includes(r.ai!.severity as (typeof SEVERITIES)[number]));
    } finally {
      await srv?.close();
    }
  });
});
