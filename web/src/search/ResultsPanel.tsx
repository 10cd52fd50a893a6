import { useEffect, useMemo, useRef, type RefObject } from 'react';
import type { LogEvent } from '../api/types';
import { Button } from '../ui/Button';
import { EventsList, type EventsListHandle } from './EventsList';
import { searchTerms } from './highlight';
import { Histogram } from './Histogram';
import { isTimechart, viewOf, type SearchParams } from './params';
import { ResultChart } from './ResultChart';
import { ResultsToolbar, type View } from './ResultsToolbar';
import { EmptyHint, LiveNote, SearchProgress, SearchWarnings } from './SearchNotices';
import { TableResults } from './TableResults';
import { useFind } from './useFind';
import type { SearchResults } from './useSearchResults';
import { MAX_EVENTS, type SearchStore } from './useSearchState';

interface Props {
  params: SearchParams;
  results: SearchResults;
  ui: SearchStore;
  /** The events shown: the search's, or the live tail's. */
  events: LogEvent[];
  /** The answer is a table (stats, timechart…), not events. */
  table: boolean;
  findInput: RefObject<HTMLInputElement | null>;
  onChange: (patch: Partial<SearchParams>) => void;
  /** Shows a table answer as a table or a chart (kept in the URL; the search does not run again). */
  onView: (view: 'table' | 'chart') => void;
  /** Opens the field list's drawer (phones). */
  onFields: () => void;
  onFilter: (field: string, value: unknown, exclude: boolean) => void;
  onSaveMonitor: () => void;
}

/** The right side of the search page: histogram, toolbar, notices, and the events or the table. */
export function ResultsPanel({
  params,
  results: s,
  ui,
  events,
  table,
  findInput,
  onChange,
  onView,
  onFields,
  onFilter,
  onSaveMonitor,
}: Props) {
  const list = useRef<EventsListHandle>(null);
  const find = useFind(events);
  const current = find.current;
  useEffect(() => {
    if (current !== null) list.current?.scrollTo(current);
  }, [current]);
  // live tail with events: the count is theirs, and the search's "nothing matched" notices step aside
  const liveCount = ui.liveEvents ? events.length : 0;
  const hint = s.result?.meta.matched === 0 && liveCount === 0 ? s.result.meta.hint : undefined;
  // events are shown as a table only; a table answer as a table or a chart
  // the view is the URL's (a shared link opens the chart it showed), else what the query suits
  const view: View = viewOf(params);
  return (
    <section className="results" aria-label="Results" id="results" tabIndex={-1}>
      <Histogram
        data={s.histogram}
        loading={s.histogramLoading}
        onZoom={(a, b) => onChange({ from: new Date(a).toISOString(), to: new Date(b).toISOString() })}
        liveCount={liveCount}
      />
      <ResultsToolbar
        ref={findInput}
        meta={s.result?.meta ?? null}
        metaFor={s.resultFor}
        liveCount={ui.liveEvents ? events.length : undefined}
        onFields={onFields}
        shown={events.length}
        table={table}
        view={view}
        onView={(v) => onView(v === 'chart' ? 'chart' : 'table')}
        wrap={ui.wrap}
        onWrap={ui.toggleWrap}
        params={params}
        live={ui.live}
        paused={ui.paused}
        onLive={ui.toggleLive}
        onPause={ui.togglePause}
        find={find}
        onSaveMonitor={onSaveMonitor}
      />
      <SearchProgress running={s.searching ? s.key : null} onCancel={s.cancel} />
      {ui.live && <LiveNote paused={ui.paused} />}
      <SearchWarnings warnings={s.result?.meta.warnings} />
      {hint && <EmptyHint hint={hint} onRange={onChange} />}
      {table && s.result?.columns ? (
        view === 'chart' ? (
          <ResultChart columns={s.result.columns} rows={s.result.rows ?? []} timechart={isTimechart(params.q)} />
        ) : (
          <TableResults columns={s.result.columns} rows={s.result.rows ?? []} />
        )
      ) : (
        <Events params={params} results={s} ui={ui} events={events} find={find} listRef={list} onFilter={onFilter} />
      )}
    </section>
  );
}

/** The events, newest first, with "show more" under them while the search matched more. */
function Events({
  params,
  results: s,
  ui,
  events,
  find,
  listRef,
  onFilter,
}: Pick<Props, 'params' | 'results' | 'ui' | 'events' | 'onFilter'> & {
  find: ReturnType<typeof useFind>;
  listRef: RefObject<EventsListHandle | null>;
}) {
  const terms = useMemo(() => searchTerms(params.q), [params.q]);
  // columns that would be empty or all alike in the rows in view are left out
  const showIndex = !params.index && new Set(events.slice(0, 200).map((e) => e.index)).size > 1;
  const showHost = events.slice(0, 200).some((e) => e.host !== '');
  const fieldNames = useMemo(() => (s.fields?.fields ?? []).map((f) => f.name), [s.fields]);
  const more = Math.min(MAX_EVENTS, ui.limit * 10);
  const canMore = !ui.liveEvents && s.result && events.length < s.result.meta.matched && events.length < MAX_EVENTS;
  return (
    <EventsList
      ref={listRef}
      events={events}
      expanded={ui.expanded}
      onToggle={ui.toggleExpanded}
      wrap={ui.wrap}
      terms={terms}
      find={find.re}
      current={find.current}
      showIndex={showIndex}
      showHost={showHost}
      onFilter={onFilter}
      onContext={ui.showContext}
      fieldNames={fieldNames}
      footer={
        canMore ? (
          <div className="list-footer">
            <Button onClick={ui.showMore} disabled={s.searching}>
              Show {more.toLocaleString()} newest events
            </Button>
          </div>
        ) : null
      }
    />
  );
}
