import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import type { SearchResult } from '../query/types.js';
import { note, write, type CliContext } from './context.js';
import { eventLine } from './format.js';
import { ApiError, UnreachableError } from './http-client.js';
import { choice, intIn } from './options.js';
import { queryError } from './search.js';
import { TailWindow } from './tail-window.js';

interface TailOptions {
  env?: string;
  index?: string;
  from: string;
  interval: number;
  output: 'text' | 'ndjson';
}

/** Events one poll may bring; more in one interval and some could be missed (said on stderr). */
const POLL_LIMIT = 10_000;

/** A poll that failed for a reason that may pass (svc restarting, busy): said once, then tried again. */
function transient(e: unknown): boolean {
  return e instanceof UnreachableError || (e instanceof ApiError && e.retriable);
}

/**
 * Follows a search: every interval, asks /api/search for the events since just before the newest
 * one seen and prints those not printed yet, oldest first, until Ctrl+C. Events are followed by
 * their own time (svc's order): an event stamped well before the newest one seen is not shown.
 */
async function tail(ctx: CliContext, q: string, opts: TailOptions): Promise<void> {
  const window = new TailWindow(opts.from);
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  let failing = false;
  while (!ac.signal.aborted) {
    try {
      const query = { q, env: opts.env, index: opts.index, from: window.from(), limit: POLL_LIMIT };
      const r = await ctx.client().json<SearchResult>('GET', '/api/search', { query, signal: ac.signal });
      if (r.events.length >= POLL_LIMIT)
        note(`svc tail: more than ${POLL_LIMIT} events in one poll; some may be missing (narrow the query)`);
      const fresh = window.take(r.events);
      await write(
        fresh.map((e) => (opts.output === 'ndjson' ? JSON.stringify(e) + '\n' : eventLine(e, ctx.out))).join(''),
      );
      if (failing) note('svc tail: reconnected');
      failing = false;
    } catch (e) {
      if (ac.signal.aborted) break;
      if (!transient(e)) throw queryError(e, q);
      if (!failing) note(`svc tail: ${(e as Error).message}; trying again`);
      failing = true;
    }
    await sleep(opts.interval * 1000, undefined, { signal: ac.signal }).catch(() => undefined);
  }
}

export function registerTail(program: Command, ctx: CliContext): void {
  program
    .command('tail')
    .description('follow new events of a search until Ctrl+C')
    .argument('<query>', 'a search (pipes that aggregate make no sense here)')
    .option('--env <env>', 'environment (default: every one you may read)')
    .option('--index <index>', 'index (default: every one)')
    .option('--from <time>', 'show events from this time on first', '-1m')
    .option('--interval <secs>', 'seconds between polls', intIn(1, 3600), 1)
    .addOption(
      choice('-o, --output <format>', 'text (one line per event) or ndjson', ['text', 'ndjson'] as const, 'text'),
    )
    .action((q: string, opts: TailOptions) => tail(ctx, q, opts));
}
