import { z } from 'zod';
import { schemaText } from '../llm/json-text.js';
import { SvcError } from '../errors/svc-error.js';
import type { LlmProvider } from '../llm/provider.js';
import { QUERY_SYNTAX } from '../mcp/query-help.js';
import { parse } from '../query/parser.js';

// "Write the query for me" (docs/decisions/0018-llm-provider-and-agent.md): the model proposes a query for a
// question in words, and svc's own parser checks it before anyone sees it. A query the parser refuses goes
// back to the model once with the parser's message; refused twice, the answer is an error, never a bad query.

const SCHEMA = {
  type: 'object',
  properties: { query: { type: 'string', maxLength: 1000 }, explanation: { type: 'string', maxLength: 400 } },
  required: ['query', 'explanation'],
  additionalProperties: false,
};
const answer = z.object({ query: schemaText(1000, 1), explanation: schemaText(400) }).strict();

export interface WrittenQuery {
  query: string;
  explanation: string;
  /** Always true: the query passed svc's parser. */
  checked: true;
}

export async function writeQuery(
  llm: LlmProvider,
  question: string,
  hint: { env?: string; index?: string },
): Promise<WrittenQuery> {
  const scope = [hint.env && `env ${hint.env}`, hint.index && `index ${hint.index}`].filter(Boolean).join(', ');
  const messages = [
    {
      role: 'system' as const,
      content: `Write one svc search query that answers the user's question, and explain it in one sentence. Answer JSON only.\n${QUERY_SYNTAX}`,
    },
    { role: 'user' as const, content: scope ? `${question}\n(The search runs in ${scope}.)` : question },
  ];
  for (let attempt = 1; ; attempt++) {
    const a = await llm.chatJson(
      { feature: 'agent', messages, jsonSchema: { name: 'svc_query', schema: SCHEMA }, maxTokens: 600 },
      answer,
    );
    try {
      parse(a.query);
      return { query: a.query, explanation: a.explanation, checked: true };
    } catch (e) {
      if (!(e instanceof SvcError) || attempt >= 2)
        throw new SvcError('llm_invalid_output', `the model's query did not parse: ${(e as Error).message}`);
      messages.push({ role: 'user', content: `That query does not parse: ${e.message}. Write a corrected one.` });
    }
  }
}
