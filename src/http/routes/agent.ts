import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { runAgent, type AgentEvent, type AgentRequest } from '../../agent/agent.js';
import { writeQuery } from '../../agent/write-query.js';
import { SvcError } from '../../errors/svc-error.js';
import type { ErrorCode } from '../../errors/codes.js';

const text = (max: number) =>
  z.string({ invalid_type_error: 'must be a string' }).max(max, `must be at most ${max} characters`);
const agentRequest = z
  .object({
    question: text(4000).trim().min(1, 'must not be empty'),
    env: text(200).optional(),
    index: text(200).optional(),
    from: text(64).optional(),
    to: text(64).optional(),
    conversation: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: text(20_000) }).strict())
      .max(40, 'at most 40 turns')
      .optional(),
  })
  .strict();

const queryRequest = z
  .object({
    question: text(4000).trim().min(1, 'must not be empty'),
    env: text(200).optional(),
    index: text(200).optional(),
  })
  .strict();
const explainRequest = z
  .object({ eventId: text(500).trim().min(1, 'must not be empty'), question: text(4000).optional() })
  .strict();

/** One JSON answer, or with `Accept: application/x-ndjson` one event a line as it happens. */
const NDJSON_OR_JSON = ['application/json', 'application/x-ndjson'];

/**
 * POST /api/agent (docs/decisions/0018-llm-provider-and-agent.md): a question about the logs, answered by the
 * LLM calling the MCP tools as the caller. `Accept: application/x-ndjson` streams one JSON event per line as
 * it happens (tool_call, tool_result, then answer or error); otherwise one JSON answer with every step. POST
 * /api/agent/explain {eventId} explains one event the same way; POST /api/agent/query {question} writes a
 * query, checked by svc's parser.
 */
export async function agentRoutes(app: FastifyInstance): Promise<void> {
  // "write the query for me": a query checked by svc's parser, never shown unchecked
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'agent' as const };
  const tags = ['agent'];
  const query = {
    summary: 'write a query for a question (checked by the parser)',
    tags,
    body: queryRequest,
    errors: [503],
  };
  // audit (http/audit.ts): the question is recorded, the answer is not
  api.post(
    '/api/agent/query',
    { config: { ...config, audit: { action: 'agent.query' } }, schema: query },
    async (request) => {
      const input = request.body;
      if (!app.deps.llm.configured)
        throw new SvcError(
          'llm_not_configured',
          'writing queries needs an LLM provider, and none is configured (SVC_LLM_URL)',
        );
      return writeQuery(app.deps.llm, input.question, input);
    },
  );
  // "explain this event": the agent fetches the event as the caller (get_event) and explains it
  const explain = { summary: 'explain one event', tags, body: explainRequest, produces: NDJSON_OR_JSON, errors: [503] };
  api.post(
    '/api/agent/explain',
    { config: { ...config, audit: { action: 'agent.explain' } }, schema: explain },
    async (request, reply) => {
      const input = request.body;
      const question = `Explain this log event: what happened, what it means, and what to look at next. Call get_event with id "${input.eventId}" first.${input.question ? ` The user asks: ${input.question}` : ''}`;
      return answerAgent(app, request, reply, { question });
    },
  );
  const ask = {
    summary: 'a question about the logs, answered by the agent',
    tags,
    body: agentRequest,
    produces: NDJSON_OR_JSON,
    errors: [503],
  };
  api.post(
    '/api/agent',
    { config: { ...config, audit: { action: 'agent.ask' } }, schema: ask },
    async (request, reply) => answerAgent(app, request, reply, request.body),
  );
}

async function answerAgent(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  input: AgentRequest,
): Promise<unknown> {
  const { llm, search, control, store, savedSearches, selflog, clock, log } = app.deps;
  if (!llm.configured)
    throw new SvcError('llm_not_configured', 'the agent needs an LLM provider, and none is configured (SVC_LLM_URL)');
  const deps = { llm, mcp: { search, control, store, savedSearches, selflog, clock, log } };
  const principal = principalOf(request);
  const ac = new AbortController();
  reply.raw.once('close', () => !reply.raw.writableFinished && ac.abort());
  if ((request.headers.accept ?? '').includes('application/x-ndjson')) {
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    await runAgent(deps, principal, input, (e) => reply.raw.write(JSON.stringify(e) + '\n'), ac.signal);
    reply.raw.end();
    return;
  }
  const steps: AgentEvent[] = [];
  let end: AgentEvent | undefined;
  await runAgent(
    deps,
    principal,
    input,
    (e) => (e.type === 'answer' || e.type === 'error' ? (end = e) : e.type !== 'text' && steps.push(e)),
    ac.signal,
  );
  const done = end;
  if (done?.type === 'error') throw new SvcError(done.code as ErrorCode, done.message);
  return { ...(done as Extract<AgentEvent, { type: 'answer' }>), steps };
}
