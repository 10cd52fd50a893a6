import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { z, type ZodError } from 'zod';
import type { Principal } from '../auth/principal.js';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import { VERSION } from '../version.js';
import { SERVER_INSTRUCTIONS } from './query-help.js';
import { allowedTool, visibleTools } from './tools/allowlist.js';
import type { McpDeps, McpTool, ToolOutput } from './tools/types.js';
import type { McpOutcome } from '../selflog/types.js';
import type { SearchService } from '../query/types.js';

/**
 * The MCP server for one authenticated principal (stateless: one per HTTP request).
 * tools/list shows only the tools the principal's allowlist holds; calling any other tool is a
 * JSON-RPC error (-32602), never a tool result. Every tools/call is recorded in `_svcmcp`.
 */
export function buildMcpServer(deps: McpDeps, principal: Principal): Server {
  const server = new Server(
    { name: 'svc', version: VERSION },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: visibleTools(principal).map(toolDefinition),
  }));
  // the SDK parses a request with the handler's schema before its own tools/call check, and answers
  // that parse's failure (`"arguments": "x"`) as -32603 internal: a schema that lets every tools/call
  // through leaves the check to the SDK's wrapper, which answers -32602 invalid params
  server.setRequestHandler(ANY_TOOLS_CALL, async (req, extra) => {
    const { params } = CallToolRequestSchema.parse(req);
    // the SDK aborts `extra.signal` when the connection closes (route.ts closes the server then)
    return callTool(deps, principal, params.name, params.arguments ?? {}, extra.signal);
  });
  return server;
}

const ANY_TOOLS_CALL = z.object({ method: z.literal('tools/call'), params: z.unknown().optional() }).passthrough();

const definitions = new Map<string, Tool>();

export function toolDefinition(t: McpTool): Tool {
  let def = definitions.get(t.name);
  if (!def) {
    const inputSchema = toJsonSchemaCompat(t.input, {
      strictUnions: true,
      pipeStrategy: 'input',
    }) as Tool['inputSchema'];
    def = {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    };
    definitions.set(t.name, def);
  }
  return def;
}

type Recorder = (outcome: McpOutcome, resultCount: number, err?: { code: string; message: string }) => void;

/**
 * Runs one tools/call: allowlist, argument validation, the tool, the `_svcmcp` record. `signal`
 * (the caller went away) stops the tool's searches, as a REST client's disconnect does.
 */
export async function callTool(
  deps: McpDeps,
  principal: Principal,
  name: string,
  rawArgs: unknown,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const record = recorder(deps, principal, name, rawArgs);
  const allowed = allowedTool(principal, name);
  if ('refused' in allowed) {
    const code = allowed.refused;
    const message = code === 'tool_hidden' ? `tool "${name}" is not available to this key` : `unknown tool "${name}"`;
    record('rejected', 0, { code, message });
    throw new McpError(ErrorCode.InvalidParams, message, { code });
  }
  const tool = allowed.tool;
  // strict: a misspelt argument (q for query) is an error the model can fix, not silently ignored
  const parsed = tool.input.strict().safeParse(rawArgs);
  if (!parsed.success) {
    const message = `invalid arguments for tool "${name}": ${argumentProblems(tool, parsed.error)}`;
    record('rejected', 0, { code: 'invalid_input', message });
    throw new McpError(ErrorCode.InvalidParams, message, { code: 'invalid_input' });
  }
  return runTool(
    signal ? { ...deps, search: cancelledBy(deps.search, signal) } : deps,
    principal,
    tool,
    parsed.data,
    record,
    signal,
  );
}

/** The search service with `signal` added to every request. */
function cancelledBy(search: SearchService, signal: AbortSignal): SearchService {
  return {
    search: (p, req) => search.search(p, { ...req, signal }),
    histogram: (p, req) => search.histogram(p, { ...req, signal }),
    fields: (p, req) => search.fields(p, { ...req, signal }),
  };
}

async function runTool(
  deps: McpDeps,
  principal: Principal,
  tool: McpTool,
  args: unknown,
  record: Recorder,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  try {
    const out: ToolOutput = await tool.run({ deps, principal, signal }, args as never);
    record('ok', out.resultCount);
    return { content: [{ type: 'text', text: out.text }], structuredContent: out.structured };
  } catch (err) {
    const e = asSvcError(err);
    if (e.kind === 'internal') deps.log.error({ err, tool: tool.name, principal: principal.id }, 'mcp tool failed');
    record('error', 0, { code: e.code, message: e.message });
    // tool-level errors (bad query, forbidden env, unknown event id) go back to the model to correct
    const text = `error ${e.code}: ${e.message}`;
    return {
      content: [{ type: 'text', text }],
      structuredContent: { error: { code: e.code, message: e.message, ...e.details } },
      isError: true,
    };
  }
}

/** One `_svcmcp` record per call, timed from here. */
function recorder(deps: McpDeps, principal: Principal, tool: string, args: unknown): Recorder {
  const started = performance.now();
  return (outcome, resultCount, err) => {
    if (principal.kind === 'ingest_token') return;
    deps.selflog.mcpCall({
      tool,
      principalName: principal.name,
      principalId: principal.id,
      principalKind: principal.kind,
      args,
      outcome,
      errorCode: err?.code,
      errorMessage: err?.message,
      durationMs: performance.now() - started,
      resultCount,
    });
  };
}

function argumentProblems(tool: McpTool, err: ZodError): string {
  return err.issues
    .map((i) => {
      if (i.code === 'unrecognized_keys')
        return `unknown argument ${i.keys.map((k) => `"${k}"`).join(', ')}; this tool takes ${Object.keys(tool.input.shape).join(', ') || 'no arguments'}`;
      return `${i.path.join('.') || 'arguments'}: ${i.message}`;
    })
    .join('; ');
}

function asSvcError(err: unknown): SvcError {
  if (isSvcError(err)) return err;
  return new SvcError('internal', 'internal error while running the tool', { cause: err });
}
