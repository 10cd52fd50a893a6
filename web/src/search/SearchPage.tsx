import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { LogEvent } from '../api/types';
import { remember } from '../lang/history';
import { Button } from '../ui/Button';
import { duration, localTime } from '../ui/format';
import { Icon } from '../ui/icons';
import { toggled } from '../ui/sets';
import { ContextPanel } from './ContextPanel';
import { AskPanel } from './AskPanel';
import { get } from '../api/client';
import { EventsList, type EventsListHandle } from './EventsList';
import { FieldSidebar } from './FieldSidebar';
import { searchTerms } from './highlight';
import { Histogram } from './Histogram';
import { isTableQuery, isTimechart, readParams, writeParams, type SearchParams } from './params';
import { addFilter } from './query-edit';
import { type QueryEditorHandle } from './QueryEditor';
import { ResultChart } from './ResultChart';
import { ResultsToolbar, type View } from './ResultsToolbar';
import { SearchBar } from './SearchBar';
import { TableResults } from './TableResults';
import { useCatalog } from './useCatalog';
import { useFind } from './useFind';
import { useLiveTail } from './useLiveTail';
import { useSearchResults } from './useSearchResults';

const FIRST_PAGE = 1000;
const MAX_EVENTS = 10_000;
/** Live tail keeps at most this many events: memory stays flat however long it runs. */
const LIVE_CAP = 10_000;

export function SearchPage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = useMemo(() => readParams(search), [search]);
  const [draft, setDraft] = useState(params.q);
  const [run, setRun] = useState(0);
  const [limit, setLimit] = useState(FIRST_PAGE);
  const [view, setView] = useState<View>('table');
  const [wrap, setWrap] = useState(() => localStorage.getItem('svc.wrap') === '1');
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const [contextOf, setContextOf] = useState<LogEvent | null>(null);
  const [live, setLive] = useState(false);
  const [paused, setPaused] = useState(false);
  const [liveEvents, setLiveEvents] = useState<LogEvent[] | null>(null);
  const [asking, setAsking] = useState(false);
  const [llmOn, setLlmOn] = useState(false);
  const editor = useRef<QueryEditorHandle>(null);
  const list = useRef<EventsListHandle>(null);
  const findInput = useRef<HTMLInputElement>(null);
  const { envs, language } = useCatalog();
  const s = useSearchResults(params, limit, run);
  // the answer says whether it is a table; before it arrives, the query's pipes guess
  const table = s.result && s.resultFor?.q === params.q ? s.result.columns !== undefined : isTableQuery(params.q);

  useEffect(() => setDraft(params.q), [params.q]);
  useEffect(
    () =>
      void get<{ configured: boolean }>('/api/llm').then(
        (s) => setLlmOn(s.configured),
        () => setLlmOn(false),
      ),
    [],
  );
  useEffect(() => {
    setExpanded(new Set());
    setLimit(FIRST_PAGE);
    setLive(false);
    setLiveEvents(null);
  }, [params.q, params.env, params.index, params.from, params.to]);

  const go = useCallback(
    (patch: Partial<SearchParams>) => navigate(`/search?${writeParams({ ...params, ...patch })}`),
    [navigate, params],
  );
  const runQuery = useCallback(
    (q: string) => {
      remember(q);
      if (q === params.q) setRun((r) => r + 1);
      else go({ q });
    },
    [go, params.q],
  );
  const filter = useCallback(
    (field: string, value: unknown, exclude: boolean) => runQuery(addFilter(params.q, field, value, exclude)),
    [params.q, runQuery],
  );

  // events: the search's, or the live tail's once it has started
  const events = liveEvents ?? s.result?.events ?? [];
  const find = useFind(events);
  useEffect(() => {
    if (find.current !== null) list.current?.scrollTo(find.current);
  }, [find.current]);

  useLiveTail(params, live && !paused && !table, (fresh) =>
    setLiveEvents((cur) => [...fresh, ...(cur ?? s.result?.events ?? [])].slice(0, LIVE_CAP)),
  );

  // `/` focuses the editor, Ctrl+F the page's find (the browser's cannot see virtualised rows)
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      const typing = (e.target as HTMLElement).closest('input, textarea, select, .cm-editor');
      if (e.key === '/' && !typing) {
        e.preventDefault();
        editor.current?.focus();
      } else if ((e.ctrlKey || e.metaKey) && e.key === 'f' && !table && events.length > 0) {
        e.preventDefault();
        findInput.current?.focus();
        findInput.current?.select();
      }
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [table, events.length]);

  const terms = useMemo(() => searchTerms(params.q), [params.q]);
  const completion = useCallback(() => ({ language, fields: s.fields?.fields ?? [] }), [language, s.fields]);
  const queryError =
    s.error && s.error.code === 'invalid_query' ? { message: s.error.message, position: s.error.position } : null;
  const hint = s.result?.meta.matched === 0 ? s.result.meta.hint : undefined;
  // columns that would be empty or all alike in the rows in view are left out
  const showIndex = !params.index && new Set(events.slice(0, 200).map((e) => e.index)).size > 1;
  const showHost = events.slice(0, 200).some((e) => e.host !== '');
  const elapsed = useElapsed(s.startedAt);
  const tableView: View = view === 'events' ? 'table' : view;

  return (
    <div className="search-page">
      <SearchBar
        ref={editor}
        params={params}
        draft={draft}
        onDraft={setDraft}
        onRun={runQuery}
        onChange={go}
        envs={envs}
        error={queryError}
        completion={completion}
        searching={s.searching}
        onCancel={s.cancel}
      />
      {s.error && (
        <div
          className={s.error.code === 'cancelled' ? 'alert alert-info' : 'alert alert-error'}
          role="alert"
          data-testid="search-error"
        >
          <Icon name={s.error.code === 'cancelled' ? 'info' : 'alert'} />
          <span>{s.error.message}</span>
        </div>
      )}
      <div className="search-body">
        <FieldSidebar
          fields={s.fields}
          loading={s.fieldsLoading}
          onFilter={filter}
          onStack={(by) => go({ by })}
          stackedBy={params.by}
        />
        <section className="results" aria-label="Results">
          <Histogram
            data={s.histogram}
            loading={s.histogramLoading}
            onZoom={(a, b) => go({ from: new Date(a).toISOString(), to: new Date(b).toISOString() })}
          />
          <ResultsToolbar
            ref={findInput}
            meta={s.result?.meta ?? null}
            metaFor={s.resultFor}
            shown={events.length}
            table={table}
            view={tableView}
            onView={setView}
            wrap={wrap}
            onWrap={() => {
              localStorage.setItem('svc.wrap', wrap ? '0' : '1');
              setWrap(!wrap);
            }}
            params={params}
            live={live}
            paused={paused}
            onLive={() => {
              setLive(!live);
              setPaused(false);
              if (live) setLiveEvents(null);
            }}
            onPause={() => setPaused(!paused)}
            find={find}
          />
          {s.searching && elapsed > 300 && (
            <div className="progress" data-testid="progress">
              <div className="progress-bar" />
              <span className="muted small">Searching… {duration(elapsed)}</span>
              <Button size="sm" variant="ghost" onClick={s.cancel}>
                Cancel
              </Button>
            </div>
          )}
          {live && (
            <div className="live-note small" data-testid="live-note">
              <span className={paused ? 'live-dot paused' : 'live-dot'} />{' '}
              {paused ? 'Paused' : 'Live: new events appear at the top'} · keeps the newest {LIVE_CAP.toLocaleString()}
            </div>
          )}
          {hint && (
            <div className="empty-hint" data-testid="hint">
              <Icon name="info" />
              <div>
                <p>{hint.message}</p>
                {hint.earliest && hint.latest && hint.eventsOutsideRange > 0 && (
                  <Button
                    size="sm"
                    variant="primary"
                    onClick={() =>
                      go({ from: hint.earliest!, to: new Date(Date.parse(hint.latest!) + 1000).toISOString() })
                    }
                  >
                    Search {localTime(hint.earliest).slice(0, 16)} → {localTime(hint.latest).slice(0, 16)}
                  </Button>
                )}
              </div>
            </div>
          )}
          {table && s.result?.columns ? (
            tableView === 'chart' ? (
              <ResultChart columns={s.result.columns} rows={s.result.rows ?? []} timechart={isTimechart(params.q)} />
            ) : (
              <TableResults columns={s.result.columns} rows={s.result.rows ?? []} />
            )
          ) : (
            <EventsList
              ref={list}
              events={events}
              expanded={expanded}
              onToggle={(i) => setExpanded((x) => toggled(x, i))}
              wrap={wrap}
              terms={terms}
              find={find.re}
              current={find.current}
              showIndex={showIndex}
              showHost={showHost}
              onFilter={filter}
              onContext={setContextOf}
              footer={
                !liveEvents && s.result && events.length < s.result.meta.matched && events.length < MAX_EVENTS ? (
                  <div className="list-footer">
                    <Button onClick={() => setLimit(Math.min(MAX_EVENTS, limit * 10))} disabled={s.searching}>
                      Show {Math.min(MAX_EVENTS, limit * 10).toLocaleString()} newest events
                    </Button>
                  </div>
                ) : null
              }
            />
          )}
        </section>
      </div>
      {contextOf && <ContextPanel anchor={contextOf} onClose={() => setContextOf(null)} />}
      {llmOn && !asking && (
        <Button variant="primary" icon="activity" className="ask-toggle" onClick={() => setAsking(true)}>
          Ask
        </Button>
      )}
      {asking && (
        <AskPanel
          params={params}
          onClose={() => setAsking(false)}
          onQuery={(q) => {
            setDraft(q);
            runQuery(q);
          }}
        />
      )}
    </div>
  );
}

/** Milliseconds since `start`, ticking while it is set. */
function useElapsed(start: number | null): number {
  const [now, setNow] = useState(performance.now());
  useEffect(() => {
    if (start === null) return;
    const t = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(t);
  }, [start]);
  return start === null ? 0 : Math.max(0, now - start);
}
