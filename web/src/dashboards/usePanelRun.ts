import { useEffect, useState } from 'react';
import { isAbort } from '../api/client';
import { errorMessage } from '../ui/useAsyncAction';
import { runPanel, type DashboardPanel, type PanelAnswer, type RunBody } from './dashboard-api';
import { singleValue } from './viz/SingleViz';

export interface PanelRun {
  status: 'loading' | 'ready' | 'error';
  answer: PanelAnswer | null;
  error: string | null;
  /** A single-value panel's number over the previous period (undefined: not answered yet; null: none). */
  previous?: number | null;
}

/** What came back, and for which run (`key`): a run whose key is not the current one is still loading. */
interface Got {
  key: string;
  answer: PanelAnswer | null;
  error: string | null;
  previous?: number | null;
}

/**
 * Runs one panel for one load (`body.now` names the load) and again whenever its definition, the
 * range or the variables change. Every panel runs on its own, so they load in parallel and one's
 * error stays its own. A refresh keeps the last answer on screen while the next one comes.
 */
export function usePanelRun(dashId: string, panel: DashboardPanel, body: RunBody | null): PanelRun {
  const key = JSON.stringify([dashId, panel.id, panel.type, panel.source, panel.options, body]);
  const [got, setGot] = useState<Got>({ key: '', answer: null, error: null });
  useEffect(() => {
    if (!body) return;
    const ac = new AbortController();
    const trend = panel.type === 'single' && panel.options?.trend;
    (async () => {
      const answer = await runPanel(dashId, panel.id, body, ac.signal);
      setGot({ key, answer, error: null, previous: trend ? undefined : null });
      if (!trend) return;
      // the previous period of the same length, ending where this one starts, asked with explicit instants
      const from = Date.parse(answer.range.from);
      const to = new Date(2 * from - Date.parse(answer.range.to)).toISOString();
      const before = await runPanel(dashId, panel.id, { ...body, from: to, to: answer.range.from }, ac.signal).then(
        singleValue,
        () => null,
      );
      setGot((g) => (g.answer === answer ? { ...g, previous: before } : g));
    })().catch((e: unknown) => {
      if (!isAbort(e)) setGot({ key, answer: null, error: errorMessage(e) });
    });
    return () => ac.abort();
    // key holds everything the run depends on
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const current = got.key === key;
  return {
    status: !current ? 'loading' : got.error !== null ? 'error' : 'ready',
    // the last answer stays while the next loads; an error shows only for the run it came from
    answer: got.answer,
    error: current ? got.error : null,
    previous: got.previous,
  };
}
