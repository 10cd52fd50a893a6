import { z } from 'zod';
import { SvcError } from '../../errors/svc-error.js';
import { fingerprint, parseEventId, timeWindow } from '../event-id.js';
import { cut } from '../format.js';
import { defineTool } from './types.js';

/** Events read from the id's one-millisecond window while looking for the fingerprint. */
const WINDOW_LIMIT = 1000;
const FULL_MESSAGE_CHARS = 100_000;

const input = z.object({
  id: z
    .string()
    .min(1)
    .max(2000)
    .describe('The event id exactly as search returned it (id=... in the text, "id" in structured content).'),
});

export const getEventTool = defineTool({
  name: 'get_event',
  title: 'Get one event',
  description:
    'Fetch one event\'s full record by the id a search returned: time, env, index, host, source, sourcetype, the whole message (search lists shorten long messages) and every field. Ids look like "<env>/<index>/<time>/<fingerprint>".',
  input,
  async run({ deps, principal }, args) {
    const id = parseEventId(args.id);
    if (!id)
      throw new SvcError(
        'invalid_input',
        `cannot parse event id "${cut(args.id, 100)}": want <env>/<index>/<time>/<16 hex>, as search returns it`,
      );
    const window = timeWindow(id.time)!;
    const res = await deps.search.search(principal, {
      q: '*',
      env: id.env,
      index: id.index,
      from: window.from,
      to: window.to,
      limit: WINDOW_LIMIT,
    });
    const event = res.events.find((e) => e.time === id.time && fingerprint(e) === id.hash);
    if (!event) {
      throw new SvcError(
        'not_found',
        `no event with id "${args.id}": it may have been deleted by retention, or the id was changed`,
      );
    }
    const lines = [
      `id: ${args.id}`,
      `time: ${event.time}`,
      `env: ${event.env}`,
      `index: ${event.index}`,
      `host: ${event.host}`,
      `source: ${event.source}`,
      `sourcetype: ${event.sourcetype}`,
      `message: ${cut(event.message, FULL_MESSAGE_CHARS)}`,
      ...Object.entries(event.fields ?? {})
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => `field ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
    ];
    return { text: lines.join('\n'), structured: { event: { id: args.id, ...event } }, resultCount: 1 };
  },
});
