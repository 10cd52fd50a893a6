import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { SvcError } from '../errors/svc-error.js';
import { described } from '../http-kit/schema/compiler.js';
import { VERSION } from '../version.js';
import { buildMcpServer } from './mcp-server.js';
import { internalError, methodNotAllowed } from './respond.js';
import type { McpDeps } from './tools/types.js';
import type { Detail } from '../selflog/types.js';

/**
 * `/mcp`: the MCP Streamable HTTP endpoint, stateless (a server and transport per POST, answers as
 * plain JSON; notifications get 202 from the transport). GET and DELETE answer 405: there is no
 * session and no server-initiated stream. The auth hook enforces `access: 'mcp'` before the
 * handler runs and sets `request.principal`.
 */
export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const { search, control, store, savedSearches, selflog, clock, log } = app.deps;
  const deps: McpDeps = { search, control, store, savedSearches, selflog, clock, log };
  const tags = ['mcp'];
  // the MCP SDK checks the message and answers JSON-RPC errors itself
  const message = described(z.record(z.unknown()).describe('a JSON-RPC 2.0 request or notification'));
  const post = { summary: 'MCP Streamable HTTP (stateless; JSON-RPC in, JSON out)', tags, body: message };
  const config = { access: 'mcp' as const, audit: { describe: auditedCall } };
  app.post('/mcp', { config, schema: post }, (request, reply) => handlePost(deps, request, reply));
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { access: 'mcp' },
      schema: { summary: 'answers 405: no sessions, no server-initiated stream', tags, success: 405 },
      handler: async (request, reply) => methodNotAllowed(request, reply),
    });
  }
}

/**
 * The audit record of a `tools/call` (http/audit.ts): `mcp.<tool>` with the query, env, index and
 * range it named; every other message (initialize, tools/list, notifications) is not audited.
 */
function auditedCall(request: FastifyRequest): Detail | null {
  const msg = request.body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | undefined;
  if (msg?.method !== 'tools/call' || typeof msg.params?.name !== 'string') return null;
  const args = (msg.params.arguments ?? {}) as Record<string, unknown>;
  const text = (k: string) => (typeof args[k] === 'string' ? args[k] : undefined);
  return {
    action: `mcp.${msg.params.name.slice(0, 64)}`,
    tool: msg.params.name.slice(0, 64),
    query: text('query') ?? text('aggregation'),
    env_name: text('env'),
    index_name: text('index'),
    from: text('from'),
    to: text('to'),
  };
}

async function handlePost(deps: McpDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const principal = request.principal;
  // defense in depth: the hook refuses anonymous calls, but /mcp must never run without a principal
  if (!principal || principal.kind === 'ingest_token')
    throw new SvcError('missing_credentials', 'the MCP endpoint needs an API key with the MCP scope');
  const server = buildMcpServer(deps, principal);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  reply.raw.setHeader('X-Svc-Version', VERSION);
  reply.raw.on('close', () => {
    void transport.close().catch(() => {});
    void server.close().catch(() => {});
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (err) {
    deps.log.error({ err, reqId: request.id }, 'mcp request failed');
    internalError(reply);
  }
}
