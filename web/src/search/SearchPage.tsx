import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { get } from '../api/client';
import { remember } from '../lang/history';
import { MonitorFromSearch } from '../monitors/MonitorFromSearch';
import type { MonitorPrefill } from '../monitors/draft';
import { SaveSearch } from '../saved/SaveSearch';
import { Button } from '../ui/Button';
import { AskPanel } from './AskPanel';
import { ContextPanel } from './ContextPanel';
import { FieldSidebar } from './FieldSidebar';
import { effectiveQuery, isTableQuery, readParams, writeParams, type SearchParams } from './params';
import { addFilter } from './query-edit';
import { type QueryEditorHandle } from './QueryEditor';
import { ResultsPanel } from './ResultsPanel';
import { SearchBar } from './SearchBar';
import { ShortcutSheet } from './ShortcutSheet';
import { ConfirmWrite, SearchError, unconfirmedWrite } from './SearchNotices';
import { useCatalog } from './useCatalog';
import { useLiveTail } from './useLiveTail';
import { useSearchKeys } from './useSearchKeys';
import { useSearchResults } from './useSearchResults';
import { useSearchState } from './useSearchState';

/**
 * The search page: the URL holds the search (params.ts), useSearchState the rest of the page's
 * state, useSearchResults the answers; this component wires them to the bar, the field sidebar,
 * the results and the panels.
 */
export function SearchPage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = useMemo(() => readParams(search), [search]);
  const ui = useSearchState(params);
  const s = useSearchResults(params, ui.limit, ui.run, ui.writes);
  const { envs, language } = useCatalog();
  const editor = useRef<QueryEditorHandle>(null);
  const findInput = useRef<HTMLInputElement>(null);
  // the answer says whether it is a table; before it arrives, the query's pipes guess
  const table = s.result && s.resultFor?.q === params.q ? s.result.columns !== undefined : isTableQuery(params.q);
  // events: the search's, or the live tail's once it has started
  const events = ui.liveEvents ?? s.result?.events ?? [];

  const { setLlm } = ui;
  useEffect(() => {
    get<{ configured: boolean }>('/api/llm').then(
      (r) => setLlm(r.configured),
      () => setLlm(false),
    );
  }, [setLlm]);

  const go = useCallback(
    (patch: Partial<SearchParams>) => navigate(`/search?${writeParams({ ...params, ...patch })}`),
    [navigate, params],
  );
  // a range, an environment or an index picked (or a zoom) runs what the editor shows, never the
  // query of the last run under a new range: the editor and the results stay one search
  const { draft } = ui;
  const goEdited = useCallback(
    (patch: Partial<SearchParams>) => {
      if (draft !== params.q) remember(draft);
      go({ q: draft, ...patch });
    },
    [go, draft, params.q],
  );
  const { rerun, confirmRun } = ui;
  // a filter or the Ask panel changes the query: it runs as a link would, without leave to write
  const runQuery = useCallback(
    (q: string) => {
      remember(q);
      if (q === params.q) rerun();
      else go({ q });
    },
    [go, params.q, rerun],
  );
  // Search or Enter in the editor: the user ran this query, which may write (outputlookup)
  const runTyped = useCallback(
    (q: string) => {
      remember(q);
      confirmRun({ ...params, q });
      if (q !== params.q) go({ q });
    },
    [go, params, confirmRun],
  );
  const filter = useCallback(
    (field: string, value: unknown, exclude: boolean) => runQuery(addFilter(params.q, field, value, exclude)),
    [params.q, runQuery],
  );
  useLiveTail(params, ui.live && !ui.paused && !table, (fresh) => ui.tail(fresh, s.result?.events ?? []));
  const [shortcuts, setShortcuts] = useState(false);
  // "Save as monitor": a dialog over the search, so the search (and the back button) stay as they are
  const [monitorOf, setMonitorOf] = useState<MonitorPrefill | null>(null);
  // phones: the field list is a drawer (styles/phone.css)
  const [fieldsOpen, setFieldsOpen] = useState(false);
  const openShortcuts = useCallback(() => setShortcuts(true), []);
  useSearchKeys(editor, findInput, !table && events.length > 0, openShortcuts);

  const completion = useCallback(() => ({ language, fields: s.fields?.fields ?? [] }), [language, s.fields]);
  const queryError =
    s.error && s.error.code === 'invalid_query' && unconfirmedWrite(s.error) === null
      ? { message: s.error.message, position: s.error.position }
      : null;

  return (
    <div className={fieldsOpen ? 'search-page fields-open' : 'search-page'}>
      <h1 className="sr-only">Search</h1>
      <SearchBar
        ref={editor}
        params={params}
        draft={ui.draft}
        onDraft={ui.setDraft}
        onRun={runTyped}
        onChange={goEdited}
        envs={envs}
        error={queryError}
        completion={completion}
        searching={s.searching}
        onCancel={s.cancel}
        actions={<SaveSearch params={params} draft={ui.draft} table={table} />}
      />
      <SearchError error={s.error} />
      <ConfirmWrite error={s.error} onConfirm={() => confirmRun(params)} />
      <div className="search-body">
        <FieldSidebar
          fields={s.fields}
          loading={s.fieldsLoading}
          onFilter={filter}
          onStack={(by) => go({ by })}
          stackedBy={params.by}
          live={ui.liveEvents !== null && events.length > 0}
          onClose={() => setFieldsOpen(false)}
        />
        <ResultsPanel
          params={params}
          results={s}
          ui={ui}
          events={events}
          table={table}
          findInput={findInput}
          onChange={goEdited}
          onView={(view) => go({ view })}
          onFields={() => setFieldsOpen((o) => !o)}
          onFilter={filter}
          onSaveMonitor={() =>
            setMonitorOf({
              query: effectiveQuery(ui.draft),
              env: params.env,
              index: params.index,
              from: params.from,
              to: params.to,
            })
          }
        />
      </div>
      {ui.contextOf && <ContextPanel anchor={ui.contextOf} onClose={() => ui.showContext(null)} />}
      {monitorOf && <MonitorFromSearch prefill={monitorOf} onClose={() => setMonitorOf(null)} />}
      {shortcuts && <ShortcutSheet onClose={() => setShortcuts(false)} />}
      {ui.llmOn && !ui.asking && (
        <Button variant="primary" icon="activity" className="ask-toggle" onClick={() => ui.setAsking(true)}>
          Ask
        </Button>
      )}
      {ui.asking && (
        <AskPanel
          params={params}
          onClose={() => ui.setAsking(false)}
          onQuery={(q) => {
            ui.setDraft(q);
            runQuery(q);
          }}
        />
      )}
    </div>
  );
}
