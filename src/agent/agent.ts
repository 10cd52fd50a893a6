import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import { SvcError } from '../errors/svc-error.js';
import type { LlmProvider } from '../llm/provider.js';
import { callTool, toolDefinition } from '../mcp/mcp-server.js';
import { visibleTools } from '../mcp/tools/allowlist.js';
import type { McpDeps } from '../mcp/tools/types.js';

// The agent (docs/decisions/0018-llm-provider-and-agent.md): answers a question about the logs by calling the
// MCP tools as the caller, so RBAC and the key's tool allowlist apply to every query it runs; each step is
// reported as it happens, and the answer cites events by their ids. docs/llm.md, "The agent".

export interface AgentRequest {
  question: string;
  env?: string;
  index?: string;
  from?: string;
  to?: string;
  /** Earlier turns of the conversation, oldest first. */
  conversation?: { role: 'user' | 'assistant'; content: string }[];
}

/** What the agent reports, in order: text as the model writes it, each tool call and its outcome, then the answer (or an error). */
export type AgentEvent =
  | { type: 'text'; step: number; delta: string }
  | { type: 'tool_call'; step: number; tool: string; arguments: unknown }
  | { type: 'tool_result'; step: number; tool: string; ok: boolean; resultCount: number; summary: string }
  | { type: 'answer'; text: string; citations: string[]; turns: number; tokens: number }
  | { type: 'error'; code: string; message: string };

/** Model turns per question, tokens per question, characters of one tool result given back to the model. */
export const MAX_STEPS = 8;
export const MAX_QUESTION_TOKENS = 60_000;
const MAX_RESULT_CHARS = 6000;

const SYSTEM = [
  "You are svc's log assistant. Answer the user's question about their logs by calling the tools, then answer briefly.",
  'Every fact in your answer must come from a tool result. Cite the events you rely on by their id in square brackets, e.g. [default/web/2026-01-01T00:00:00.000000Z/0123456789abcdef].',
  'Prefer aggregate for counts and histogram for trends; keep search limits small. If a tool answers an error, correct the call or explain what is not possible.',
].join(' ');

/** Runs one question to its answer; `emit` receives every event as it happens. Never throws. */
export async function runAgent(
  d: { llm: LlmProvider; mcp: McpDeps },
  principal: Principal,
  req: AgentRequest,
  emit: (e: AgentEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  try {
    const tools: ChatCompletionTool[] = visibleTools(principal).map((t) => {
      const def = toolDefinition(t);
      return {
        type: 'function',
        function: {
          name: def.name,
          description: def.description,
          parameters: def.inputSchema,
        },
      };
    });
    const scope = [
      req.env && `env ${req.env}`,
      req.index && `index ${req.index}`,
      req.from && `from ${req.from}`,
      req.to && `to ${req.to}`,
    ]
      .filter(Boolean)
      .join(', ');
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM + (scope ? ` Unless the user says otherwise, search ${scope}.` : '') },
      ...(req.conversation ?? []).map((m) => ({ role: m.role, content: m.content })),
      { role: 'user', content: req.question },
    ];
    const seen = new Set<string>();
    let tokens = 0;
    for (let step = 1; step <= MAX_STEPS; step++) {
      const last = step === MAX_STEPS || tokens >= MAX_QUESTION_TOKENS;
      // the last turn may not call tools: it must answer with what it has
      const a = await d.llm.chatStream(
        { feature: 'agent', messages, tools, toolChoice: last ? 'none' : 'auto', maxTokens: 1500, signal },
        (delta) => emit({ type: 'text', step, delta }),
      );
      tokens += a.totalTokens;
      if (a.toolCalls.length === 0 || last) {
        const text = a.content ?? '';
        emit({ type: 'answer', text, citations: citations(text, seen), turns: step, tokens });
        return;
      }
      messages.push({
        role: 'assistant',
        content: a.content,
        tool_calls: a.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      });
      for (const c of a.toolCalls) {
        const args = parseArgs(c.arguments);
        emit({ type: 'tool_call', step, tool: c.name, arguments: args });
        const r = await runTool(d.mcp, principal, c.name, args);
        for (const id of r.ids) seen.add(id);
        emit({
          type: 'tool_result',
          step,
          tool: c.name,
          ok: r.ok,
          resultCount: r.resultCount,
          summary: r.text.split('\n')[0].slice(0, 300),
        });
        messages.push({
          role: 'tool',
          tool_call_id: c.id,
          content:
            r.text.length > MAX_RESULT_CHARS
              ? `${r.text.slice(0, MAX_RESULT_CHARS)}\n[cut: the result is longer; narrow the query]`
              : r.text,
        });
      }
    }
  } catch (e) {
    const err = e instanceof SvcError ? e : new SvcError('internal', 'the agent failed', { cause: e });
    emit({ type: 'error', code: err.code, message: err.message });
  }
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return { _unparsed: text };
  }
}

/** One tool call as the caller; a refused or malformed call is an error result the model can correct. */
async function runTool(
  mcp: McpDeps,
  principal: Principal,
  name: string,
  args: unknown,
): Promise<{ ok: boolean; text: string; resultCount: number; ids: string[] }> {
  try {
    const r = await callTool(mcp, principal, name, args);
    const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    const s = (r.structuredContent ?? {}) as {
      events?: { id?: string }[];
      event?: { id?: string };
      rows?: unknown[];
      buckets?: unknown[];
      fields?: unknown[];
    };
    const ids = [...(s.events ?? []), ...(s.event ? [s.event] : [])].flatMap((e) => (e.id ? [e.id] : []));
    const count = s.events?.length ?? s.rows?.length ?? s.buckets?.length ?? s.fields?.length ?? (s.event ? 1 : 0);
    return { ok: !r.isError, text, resultCount: r.isError ? 0 : count, ids };
  } catch (e) {
    if (e instanceof McpError) return { ok: false, text: `error: ${e.message}`, resultCount: 0, ids: [] };
    throw e;
  }
}

/** The event ids the answer cites that a tool really returned (an invented id is not a citation). */
function citations(text: string, seen: Set<string>): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\[([^\]\s]+\/[^\]\s]+\/[^\]\s]+\/[0-9a-f]{16})\]/g))
    if (seen.has(m[1]) && !out.includes(m[1])) out.push(m[1]);
  return out;
}
