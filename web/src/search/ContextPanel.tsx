import { useCallback, useEffect, useRef, useState } from 'react';
import { get } from '../api/client';
import type { ContextResult, LogEvent } from '../api/types';
import { Button } from '../ui/Button';
import { localTime, utcTitle } from '../ui/format';
import { Modal } from '../ui/Modal';
import { errorMessage } from '../ui/useAsyncAction';
import { eventKey } from './event-key';

const PAGE = 20;

interface Props {
  anchor: LogEvent;
  onClose: () => void;
}

interface State {
  /** The request (anchor and options) these events answer: a new one hides them until it is answered. */
  of: string;
  events: LogEvent[];
  moreBefore: boolean;
  moreAfter: boolean;
}

/** Replaces the events at `time` with the complete group the server sent for it. */
function withGroup(events: LogEvent[], time: string, group: LogEvent[]): LogEvent[] {
  const first = events.findIndex((e) => e.time === time);
  const rest = events.filter((e) => e.time !== time);
  const at = first < 0 ? rest.length : first;
  return [...rest.slice(0, at), ...group, ...rest.slice(at)];
}

/**
 * The events just before and after one event, from the same host and source (either can be
 * dropped), oldest first, with "earlier" and "later" to read on. The server returns every event
 * that shares an edge's timestamp, so paging never skips events logged in the same second.
 */
export function ContextPanel({ anchor, onClose }: Props) {
  const [sameHost, setSameHost] = useState(true);
  const [sameSource, setSameSource] = useState(true);
  const [loaded, setLoaded] = useState<State | null>(null);
  const [failed, setFailed] = useState<{ of: string; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const anchorRow = useRef<HTMLDivElement>(null);
  const key = eventKey(anchor);
  const request = JSON.stringify([key, sameHost, sameSource]);
  const state = loaded?.of === request ? loaded : null;
  const error = failed?.of === request ? failed.message : null;

  const fetchAround = useCallback(
    (time: string, before: number, after: number) =>
      get<ContextResult>('/api/context', {
        env: anchor.env,
        index: anchor.index,
        time,
        host: sameHost ? anchor.host : undefined,
        source: sameSource ? anchor.source : undefined,
        before,
        after,
      }),
    [anchor, sameHost, sameSource],
  );

  useEffect(() => {
    fetchAround(anchor.time, PAGE, PAGE).then(
      (r) =>
        setLoaded({
          of: request,
          events: [...r.before, ...r.at, ...r.after],
          moreBefore: r.moreBefore,
          moreAfter: r.moreAfter,
        }),
      (e: unknown) => setFailed({ of: request, message: errorMessage(e) }),
    );
  }, [fetchAround, anchor.time, request]);

  useEffect(() => {
    if (state && anchorRow.current) anchorRow.current.scrollIntoView({ block: 'center' });
    // only when the first page arrives
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state === null]);

  const more = async (dir: 'before' | 'after') => {
    if (!state || state.events.length === 0) return;
    setBusy(true);
    try {
      const edge = dir === 'before' ? state.events[0].time : state.events[state.events.length - 1].time;
      const r = await fetchAround(edge, dir === 'before' ? PAGE : 0, dir === 'after' ? PAGE : 0);
      const merged = withGroup(state.events, edge, r.at);
      setLoaded(
        dir === 'before'
          ? { of: request, events: [...r.before, ...merged], moreBefore: r.moreBefore, moreAfter: state.moreAfter }
          : { of: request, events: [...merged, ...r.after], moreBefore: state.moreBefore, moreAfter: r.moreAfter },
      );
    } catch (e) {
      setFailed({ of: request, message: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title="Events around this one" onClose={onClose} wide>
      <div className="context-options">
        {anchor.host && (
          <label className="check">
            <input type="checkbox" checked={sameHost} onChange={(e) => setSameHost(e.target.checked)} /> same host{' '}
            <code>{anchor.host}</code>
          </label>
        )}
        {anchor.source && (
          <label className="check">
            <input type="checkbox" checked={sameSource} onChange={(e) => setSameSource(e.target.checked)} /> same source{' '}
            <code>{anchor.source}</code>
          </label>
        )}
        <span className="muted small">
          {anchor.env} / {anchor.index}
        </span>
      </div>
      {error && <div className="alert alert-error">{error}</div>}
      {!state && !error && (
        <div className="page-center">
          <span className="spinner" />
        </div>
      )}
      {state && (
        <div className="context-list" data-testid="context">
          <Button size="sm" icon="arrowUp" disabled={!state.moreBefore || busy} onClick={() => void more('before')}>
            {state.moreBefore ? `${PAGE} earlier` : 'No earlier events'}
          </Button>
          {state.events.map((e, i) => {
            const isAnchor = eventKey(e) === key;
            return (
              <div
                key={i}
                ref={isAnchor ? anchorRow : undefined}
                className={isAnchor ? 'context-row anchor' : 'context-row'}
                data-anchor={isAnchor || undefined}
              >
                <time title={utcTitle(e.time)} className="event-time">
                  {localTime(e.time)}
                </time>
                <span className="mono pre">{e.message}</span>
              </div>
            );
          })}
          <Button size="sm" icon="arrowDown" disabled={!state.moreAfter || busy} onClick={() => void more('after')}>
            {state.moreAfter ? `${PAGE} later` : 'No later events'}
          </Button>
        </div>
      )}
    </Modal>
  );
}
