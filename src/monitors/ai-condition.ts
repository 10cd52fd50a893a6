import { z } from 'zod';
import { schemaText } from '../llm/json-text.js';
import type { LlmProvider } from '../llm/provider.js';
import type { MonitorRecord } from '../control/records.js';
import type { SearchResult } from '../query/types.js';

// An AI monitor's condition: a sentence the LLM judges over at most N result rows (docs/decisions/0017-monitors.md).
// What goes to the provider is exactly what `judgePrompt` builds (docs/llm.md lists it).

/** Rows sent by default, and at most. */
export const AI_ROWS_DEFAULT = 50;
export const AI_ROWS_MAX = 200;
/** Characters of one row as sent (a longer one is cut). */
const ROW_CHARS = 1000;

export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;

/**
 * The answer the LLM must give, as a JSON schema for the provider and as a check of what came back.
 * Every string is bounded, so even a model that runs to every limit ends within max_tokens.
 */
export const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    triggered: { type: 'boolean' },
    severity: { type: 'string', enum: [...SEVERITIES] },
    summary: { type: 'string', maxLength: 200 },
    evidence: { type: 'array', items: { type: 'string', maxLength: 150 }, maxItems: 3 },
  },
  required: ['triggered', 'severity', 'summary', 'evidence'],
  additionalProperties: false,
} as const;

const verdict = z
  .object({
    triggered: z.boolean(),
    severity: z.enum(SEVERITIES),
    summary: schemaText(200),
    evidence: z.array(schemaText(150)).max(3),
  })
  .strict();

export type AiVerdict = z.infer<typeof verdict>;

/** The result's rows as plain objects (a table's rows, or the events), fields named by `redact` hidden. */
export function rowsOf(result: SearchResult, redact: readonly string[]): Record<string, unknown>[] {
  const hide = new Set(redact.map((f) => f.toLowerCase()));
  const clean = (o: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(o).map(([k, v]) => [
        k,
        hide.has(k.toLowerCase())
          ? '[redacted]'
          : v && typeof v === 'object' && !Array.isArray(v)
            ? clean(v as Record<string, unknown>)
            : v,
      ]),
    );
  if (result.columns && result.rows)
    return result.rows.map((r) => clean(Object.fromEntries(result.columns!.map((c, i) => [c, r[i]]))));
  return result.events.map((e) => clean({ ...e }));
}

/** The messages sent to the provider for one run. */
export function judgePrompt(
  m: MonitorRecord & { condition: { ai: string } },
  rows: Record<string, unknown>[],
  total: number,
  window: { from: string; to: string },
) {
  const lines = rows.map((r) => {
    const s = JSON.stringify(r);
    return s.length > ROW_CHARS ? `${s.slice(0, ROW_CHARS)}…` : s;
  });
  return [
    {
      role: 'system' as const,
      content:
        'You check a log monitor. Decide whether the condition holds for the search result below, judging only from the rows given. ' +
        'Answer with JSON only: triggered (true when the condition holds), severity, a one-sentence summary for the on-call person, ' +
        'and up to 3 pieces of evidence quoted from the rows.',
    },
    {
      role: 'user' as const,
      content:
        `Condition: ${m.condition.ai}\n` +
        `Monitor: ${m.name}\nSearch: ${m.query} (env ${m.env}${m.index ? `, index ${m.index}` : ''}) from ${window.from} to ${window.to}\n` +
        `Rows: ${rows.length} of ${total}, one JSON object per line:\n${lines.join('\n')}`,
    },
  ];
}

/** Asks the provider; its answer is checked against the schema (an unusable answer throws, recorded by the provider). */
export function askVerdict(llm: LlmProvider, messages: ReturnType<typeof judgePrompt>): Promise<AiVerdict> {
  return llm.chatJson(
    { feature: 'monitor', messages, jsonSchema: { name: 'monitor_verdict', schema: VERDICT_SCHEMA }, maxTokens: 1000 },
    verdict,
  );
}
