import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { z } from 'zod';
import type { Config } from '../config/load.js';
import type { OutboundClient } from '../outbound/client.js';
import { SvcError } from '../errors/svc-error.js';
import type { SelfLog } from '../selflog/types.js';
import type { LlmObserver } from '../metrics/llm.js';
import { Breaker } from './breaker.js';
import { TokenBudget } from './budget.js';

// The LLM provider: any OpenAI-compatible chat endpoint (docs/decisions/0018-llm-provider-and-agent.md),
// through the official `openai` client (its wire format, timeouts and retries with backoff on 429/5xx/lost
// connections), plus what svc adds: a circuit breaker, a daily token budget, one `llm_error` record per
// failure (never the key, never the prompt), and checked JSON output. docs/llm.md.

export type LlmFeature = 'monitor' | 'agent';

export interface ChatRequest {
  feature: LlmFeature;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  toolChoice?: ChatCompletionToolChoiceOption;
  /** Ask for JSON matching this schema (`response_format` json_schema). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ChatAnswer {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  totalTokens: number;
}

/** Failures in a row that open the breaker, and how long it stays open. */
const BREAKER_FAILURES = 5;
const BREAKER_OPEN_MS = 60_000;
/** The largest answer read from the provider (a streamed one in all); more is an error. */
const LLM_ANSWER_MAX_BYTES = 16 * 1024 * 1024;
/** The longest part of a provider's own error message kept in a record. */
const MAX_REASON = 200;

export class LlmProvider {
  private readonly client: OpenAI | undefined;
  private readonly breaker: Breaker;
  private readonly budget: TokenBudget;
  readonly model: string;
  /** The provider's host, for records (never its key or path). */
  readonly name: string;

  constructor(
    private readonly config: Readonly<Config>['llm'],
    private readonly selflog: SelfLog,
    now: () => number,
    outbound: OutboundClient,
    /** Told of every call and every recorded failure (metrics/llm.ts). */
    private readonly observer?: LlmObserver,
  ) {
    this.model = config?.model ?? 'default';
    this.name = config ? new URL(config.url).host : 'none';
    this.breaker = new Breaker(BREAKER_FAILURES, BREAKER_OPEN_MS, now);
    this.budget = new TokenBudget(config?.dailyTokens, now);
    // a provider without a key (Ollama, llama.cpp) still gets a placeholder: the client insists on one
    // through the guarded client (no redirects, an idle timeout, a size cap); the operator named this
    // URL in SVC_LLM_URL, so its origin is trusted whatever its address (often a llama.cpp on 127.0.0.1)
    const fetch =
      config &&
      outbound.fetcher({
        trusted: [new URL(config.url).origin],
        idleTimeoutMs: config.timeoutMs,
        maxBytes: LLM_ANSWER_MAX_BYTES,
      });
    this.client =
      config &&
      new OpenAI({
        baseURL: config.url,
        apiKey: config.apiKey ?? 'none',
        timeout: config.timeoutMs,
        maxRetries: config.maxRetries,
        fetch,
      });
  }

  get configured(): boolean {
    return this.client !== undefined;
  }

  /** What `/api/llm` shows: on or off, the model, today's tokens. */
  status(): {
    configured: boolean;
    provider?: string;
    model?: string;
    tokensToday?: { limit?: number; used: number };
    breakerOpenUntil?: string;
  } {
    if (!this.configured) return { configured: false };
    const retryAt = this.breaker.retryAt;
    return {
      configured: true,
      provider: this.name,
      model: this.model,
      tokensToday: this.budget.status(),
      breakerOpenUntil: retryAt > 0 ? new Date(retryAt).toISOString() : undefined,
    };
  }

  /** One chat completion. Every failure is recorded once (`llm_error`) and thrown as an SvcError. */
  async chat(req: ChatRequest): Promise<ChatAnswer> {
    const client = this.ready(req.feature);
    this.observer?.call(req.feature);
    let res: OpenAI.Chat.Completions.ChatCompletion;
    try {
      res = await client.chat.completions.create({ ...this.body(req), stream: false }, { signal: req.signal });
    } catch (e) {
      throw this.failed(req.feature, e);
    }
    this.breaker.success();
    const total = res.usage?.total_tokens ?? 0;
    this.budget.spend(total);
    const choice = res.choices?.[0];
    if (!choice?.message) throw this.invalid(req.feature, 'the answer has no message');
    const toolCalls = (choice.message.tool_calls ?? []).flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
    );
    return {
      content: choice.message.content ?? null,
      toolCalls,
      finishReason: choice.finish_reason ?? 'stop',
      totalTokens: total,
    };
  }

  /**
   * The same call streamed (`stream: true`): `onText` gets the answer's text as it arrives; tool
   * calls are assembled from their pieces. Failures, before or during the stream, as chat().
   */
  async chatStream(req: ChatRequest, onText: (delta: string) => void): Promise<ChatAnswer> {
    const client = this.ready(req.feature);
    this.observer?.call(req.feature);
    let content = '';
    let finishReason = 'stop';
    let totalTokens = 0;
    const calls: { id: string; name: string; arguments: string }[] = [];
    try {
      const stream = await client.chat.completions.create(
        { ...this.body(req), stream: true, stream_options: { include_usage: true } },
        { signal: req.signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) totalTokens = chunk.usage.total_tokens;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (choice.delta?.content) {
          content += choice.delta.content;
          onText(choice.delta.content);
        }
        for (const piece of choice.delta?.tool_calls ?? []) {
          const call = (calls[piece.index] ??= { id: '', name: '', arguments: '' });
          if (piece.id) call.id = piece.id;
          if (piece.function?.name) call.name += piece.function.name;
          if (piece.function?.arguments) call.arguments += piece.function.arguments;
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (e) {
      throw this.failed(req.feature, e);
    }
    this.breaker.success();
    this.budget.spend(totalTokens);
    return { content: content || null, toolCalls: calls.filter((c) => c && c.name), finishReason, totalTokens };
  }

  /**
   * A chat whose answer must be JSON of `schema` (sent as `response_format`) and pass `check`.
   * Output cut at max_tokens, not JSON, or not matching is `llm_invalid_output`, recorded.
   */
  async chatJson<T>(
    req: ChatRequest & { jsonSchema: NonNullable<ChatRequest['jsonSchema']> },
    check: z.ZodType<T>,
  ): Promise<T> {
    const a = await this.chat(req);
    if (a.finishReason === 'length') throw this.invalid(req.feature, 'the answer was cut off at the token limit');
    let value: unknown;
    try {
      value = JSON.parse(a.content ?? '');
    } catch {
      throw this.invalid(req.feature, 'the answer is not JSON');
    }
    const r = check.safeParse(value);
    if (!r.success)
      throw this.invalid(
        req.feature,
        `the answer does not match the schema: ${r.error.issues[0].path.join('.') || 'value'} ${r.error.issues[0].message}`,
      );
    return r.data;
  }

  /** The request body both chat() and chatStream() send. */
  private body(req: ChatRequest) {
    return {
      model: this.model,
      messages: req.messages,
      tools: req.tools,
      tool_choice: req.tools ? req.toolChoice : undefined,
      response_format: req.jsonSchema
        ? {
            type: 'json_schema' as const,
            json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: true },
          }
        : undefined,
      max_tokens: req.maxTokens,
      temperature: 0,
    };
  }

  /** The client, unless svc may not call the provider now (off, breaker open, budget spent). */
  private ready(feature: LlmFeature): OpenAI {
    if (!this.client) throw new SvcError('llm_not_configured', 'no LLM provider is configured (SVC_LLM_URL)');
    if (!this.budget.available()) {
      this.record(
        feature,
        'budget_exhausted',
        `the daily token budget (SVC_LLM_DAILY_TOKENS=${this.budget.status().limit}) is spent`,
      );
      throw new SvcError('llm_budget_exhausted', 'the LLM token budget for today is spent');
    }
    if (!this.breaker.allow()) {
      const until = new Date(this.breaker.retryAt).toISOString();
      this.record(
        feature,
        'circuit_open',
        `not called: the last ${BREAKER_FAILURES} calls failed; trying again after ${until}`,
      );
      throw new SvcError(
        'llm_unavailable',
        `the LLM provider failed ${BREAKER_FAILURES} times in a row; svc tries it again after ${until}`,
        { retryAfterSecs: 60 },
      );
    }
    return this.client;
  }

  private failed(feature: LlmFeature, e: unknown): SvcError {
    if (e instanceof APIUserAbortError) return new SvcError('request_cancelled', 'the request was cancelled');
    this.breaker.failure();
    let reason = 'error';
    let message = (e as Error).message;
    let status: number | undefined;
    if (e instanceof APIConnectionTimeoutError)
      [reason, message] = ['timeout', `no answer within ${this.config?.timeoutMs} ms`];
    else if (e instanceof APIConnectionError)
      [reason, message] = [
        'unreachable',
        `cannot reach the provider: ${(e.cause as Error | undefined)?.message ?? e.message}`,
      ];
    else if (e instanceof APIError) {
      status = typeof e.status === 'number' ? e.status : undefined;
      reason = status === 429 ? 'rate_limited' : status !== undefined && status >= 500 ? 'server_error' : 'refused';
      // the provider's own words are left out: a provider may quote the prompt, and with it log data
      const kind = [e.code, e.type].filter((x) => typeof x === 'string' && x.length > 0).join(', ');
      message = `answered ${status ?? 'an error'}${kind ? ` (${kind})` : ''}`;
    }
    this.record(feature, reason, message.slice(0, MAX_REASON), status);
    return new SvcError(
      'llm_unavailable',
      `the LLM provider failed (${reason}${status ? ` ${status}` : ''}): ${message.slice(0, MAX_REASON)}`,
      { cause: e },
    );
  }

  private invalid(feature: LlmFeature, message: string): SvcError {
    this.record(feature, 'invalid_output', message);
    return new SvcError('llm_invalid_output', `the LLM answer was unusable: ${message}`);
  }

  private record(feature: LlmFeature, reason: string, message: string, status?: number): void {
    this.observer?.error(feature, reason);
    this.selflog.service('llm_error', { provider: this.name, model: this.model, feature, reason, message, status });
  }
}
