import { forwardRef } from 'react';
import { queryString } from '../api/client';
import type { SearchMeta } from '../api/types';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { count, duration } from '../ui/format';
import { Icon } from '../ui/icons';
import { Popover } from '../ui/Popover';
import { apiParams, type SearchParams } from './params';

export type View = 'events' | 'table' | 'chart';

export const EXPORT_MAX = 100_000;

interface Props {
  meta: SearchMeta | null;
  /** What `meta` answers: written on the count for tests and tools that wait for a search. */
  metaFor: SearchParams | null;
  shown: number;
  /** Opens the field list's drawer (a button shown on phones only). */
  onFields: () => void;
  /** Set while the live tail shows its events: how many it shows (they replace the search's count). */
  liveCount?: number;
  table: boolean;
  view: View;
  onView: (v: View) => void;
  wrap: boolean;
  onWrap: () => void;
  params: SearchParams;
  live: boolean;
  paused: boolean;
  onLive: () => void;
  onPause: () => void;
  /** Opens the monitor editor with this search (the editor's query, the env and index picked). */
  onSaveMonitor: () => void;
  find: { text: string; setText: (t: string) => void; position: number; hits: number[]; step: (d: 1 | -1) => void };
}

/** Counts, the view switch, wrap, find, live tail and export above the results. */
export const ResultsToolbar = forwardRef<HTMLInputElement, Props>(function ResultsToolbar(p, findRef) {
  const exportHref = (format: string) =>
    `/api/export${queryString({ ...apiParams(p.params), format, max: EXPORT_MAX })}`;
  return (
    <div className="results-toolbar">
      <div
        className="result-count"
        data-testid="result-count"
        data-q={p.metaFor?.q}
        data-index={p.metaFor?.index}
        data-from={p.metaFor?.from}
        data-to={p.metaFor?.to}
      >
        {p.liveCount !== undefined ? (
          <span data-testid="live-count">
            <strong>{count(p.liveCount)}</strong> {p.liveCount === 1 ? 'event' : 'events'}
            <span className="muted"> · live</span>
          </span>
        ) : p.meta ? (
          <>
            <strong>{count(p.meta.matched)}</strong>{' '}
            {p.table
              ? p.meta.matched === 1
                ? 'event matched'
                : 'events matched'
              : p.meta.matched === 1
                ? 'event'
                : 'events'}
            {!p.table && p.shown < p.meta.matched && <span className="muted"> · newest {count(p.shown)} shown</span>}
            <span className="muted"> · {duration(p.meta.tookMs)}</span>
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </div>
      <Button size="sm" icon="list" className="phone-only" onClick={p.onFields} data-testid="fields-toggle">
        Fields
      </Button>
      <div className="spacer" />
      {p.table ? (
        <div className="tabs" role="tablist" aria-label="Result view">
          <button
            role="tab"
            aria-selected={p.view === 'table'}
            className={p.view === 'table' ? 'on' : ''}
            onClick={() => p.onView('table')}
          >
            <Icon name="table" size={14} /> Table
          </button>
          <button
            role="tab"
            aria-selected={p.view === 'chart'}
            className={p.view === 'chart' ? 'on' : ''}
            onClick={() => p.onView('chart')}
          >
            <Icon name="chart" size={14} /> Chart
          </button>
        </div>
      ) : (
        <>
          <div className="find-box">
            <Icon name="search" size={14} />
            <input
              ref={findRef}
              placeholder="Find in results"
              aria-label="Find in results"
              value={p.find.text}
              onChange={(e) => p.find.setText(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') p.find.step(e.shiftKey ? -1 : 1);
                if (e.key === 'Escape') p.find.setText('');
              }}
            />
            {p.find.text && (
              <>
                <span className="muted small find-count" data-testid="find-count">
                  {p.find.position}/{p.find.hits.length}
                </span>
                <Button
                  size="sm"
                  variant="ghost"
                  icon="arrowUp"
                  aria-label="Previous match"
                  onClick={() => p.find.step(-1)}
                />
                <Button
                  size="sm"
                  variant="ghost"
                  icon="arrowDown"
                  aria-label="Next match"
                  onClick={() => p.find.step(1)}
                />
              </>
            )}
          </div>
          <Button
            size="sm"
            variant={p.wrap ? 'primary' : 'secondary'}
            icon="wrap"
            aria-pressed={p.wrap}
            onClick={p.onWrap}
          >
            Wrap
          </Button>
          <Button
            size="sm"
            variant={p.live ? 'primary' : 'secondary'}
            icon={p.live ? 'stop' : 'play'}
            onClick={p.onLive}
            aria-pressed={p.live}
          >
            {p.live ? 'Stop live' : 'Live'}
          </Button>
          {p.live && (
            <Button size="sm" icon={p.paused ? 'play' : 'pause'} onClick={p.onPause}>
              {p.paused ? 'Resume' : 'Pause'}
            </Button>
          )}
        </>
      )}
      <Button size="sm" icon="bell" onClick={p.onSaveMonitor} data-testid="save-monitor">
        Save as monitor
      </Button>
      {/* the URL holds the whole search (query, range, env, index, view): a link to share */}
      <CopyButton text={window.location.href} label="Copy link" />
      <Popover
        align="right"
        trigger={(toggle) => (
          <Button size="sm" icon="download" onClick={toggle}>
            Export
          </Button>
        )}
      >
        {(close) => (
          <div className="menu">
            <a className="menu-item" href={exportHref('csv')} download onClick={close} data-testid="export-csv">
              CSV
            </a>
            <a className="menu-item" href={exportHref('ndjson')} download onClick={close} data-testid="export-ndjson">
              NDJSON
            </a>
            <div className="menu-note muted small">
              {p.table
                ? 'Every row of the table.'
                : `The newest ${count(EXPORT_MAX)} events at most${p.meta && p.meta.matched > EXPORT_MAX ? ` of ${count(p.meta.matched)}` : ''}.`}
            </div>
          </div>
        )}
      </Popover>
    </div>
  );
});
