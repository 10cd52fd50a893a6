import { useEffect, useEffectEvent } from 'react';
import { get } from '../api/client';
import type { LogEvent, SearchResult } from '../api/types';
import { eventKey } from './event-key';
import { apiParams, type SearchParams } from './params';

const POLL_MS = 1000;
/** Re-read this far behind the newest event seen: events of the same second arrive in several batches. */
const OVERLAP_MS = 2000;
/** On start, and while nothing arrived, look this far back (server time: relative to its clock). */
const START_WINDOW = '-60s';

/**
 * Live tail: every second, asks for matching events newer than the newest one seen (with a small
 * overlap, de-duplicated by content), and hands the new ones to `onEvents`, newest first.
 * Relative times are resolved by the server, so a skewed browser clock does not matter.
 */
export function useLiveTail(params: SearchParams, active: boolean, onEvents: (fresh: LogEvent[]) => void) {
  // the latest onEvents, without restarting the poll when the caller passes a new function
  const sink = useEffectEvent(onEvents);

  useEffect(() => {
    if (!active) return;
    let newest: string | null = null;
    let seen = new Set<string>();
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const ac = new AbortController();
    const poll = async () => {
      try {
        const from = newest ? new Date(Date.parse(newest) - OVERLAP_MS).toISOString() : START_WINDOW;
        const r = await get<SearchResult>(
          '/api/search',
          { ...apiParams(params), from, to: undefined, limit: 1000 },
          ac.signal,
        );
        const fresh = r.events.filter((e) => !seen.has(eventKey(e)));
        if (r.events.length > 0) {
          const top = r.events[0].time;
          if (!newest || top > newest) newest = top;
          // keep only keys that can come back in the overlap window
          const floor = new Date(Date.parse(newest) - OVERLAP_MS * 2).toISOString();
          seen = new Set([...seen].filter((k) => k.slice(0, k.indexOf('\u0000')) >= floor));
          for (const e of r.events) seen.add(eventKey(e));
        }
        if (fresh.length > 0) sink(fresh);
      } catch {
        // a failed poll is retried on the next tick; a 401 has already sent the user to log in
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      ac.abort();
    };
    // params is compared by value (a new object with the same search must not restart the tail), and
    // its from/to do not matter: the tail always reads from "now"
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, params.q, params.env, params.index]);
}
