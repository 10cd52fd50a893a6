import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiError, get } from '../api/client';
import type { SavedSearch } from '../api/types';
import type { QueryEditorHandle } from '../search/QueryEditor';
import { QueryField } from '../search/QueryField';
import { useCatalog } from '../search/useCatalog';
import { Button } from '../ui/Button';
import { controlProps, FormField } from '../ui/Field';
import { FormDialog } from '../ui/Modal';
import { useAsyncAction } from '../ui/useAsyncAction';
import { PANEL_KINDS, type DashboardPanel, type DashboardView, type PanelType } from './dashboard-api';
import type { DashboardChange } from './dashboard-api';
import { COLS } from './DashboardGrid';

interface Draft {
  title: string;
  type: PanelType;
  from: 'query' | 'saved';
  query: string;
  env: string;
  index: string;
  savedSearchId: string;
  style: 'line' | 'area' | 'stacked-bar';
  trend: boolean;
  thresholds: { value: string; color: string }[];
}

function draftOf(p: DashboardPanel | null): Draft {
  const s = p?.source;
  return {
    title: p?.title ?? '',
    type: p?.type ?? 'timeseries',
    from: s && 'savedSearchId' in s ? 'saved' : 'query',
    query: s && 'query' in s ? s.query : '',
    env: s && 'query' in s ? s.env : '*',
    index: s && 'query' in s ? (s.index ?? '') : '',
    savedSearchId: s && 'savedSearchId' in s ? s.savedSearchId : '',
    style: p?.options?.style ?? 'line',
    trend: p?.options?.trend ?? false,
    thresholds: (p?.options?.thresholds ?? []).map((t) => ({ value: String(t.value), color: t.color })),
  };
}

/** The panel the draft describes, in place `grid`: only the options its type reads. */
function panelOf(
  d: Draft,
  id: string | undefined,
  grid: DashboardPanel['grid'],
): Omit<DashboardPanel, 'id'> & { id?: string } {
  const source =
    d.from === 'saved'
      ? { savedSearchId: d.savedSearchId }
      : { query: d.query, env: d.env, ...(d.index ? { index: d.index } : {}) };
  const options =
    d.type === 'timeseries'
      ? { style: d.style }
      : d.type === 'single'
        ? { trend: d.trend, thresholds: d.thresholds.map((t) => ({ value: Number(t.value), color: t.color })) }
        : undefined;
  return { ...(id ? { id } : {}), title: d.title, type: d.type, source, ...(options ? { options } : {}), grid };
}

/** A new panel's place: half the width, in whichever half has room highest up (below what is there). */
function freePlace(panels: DashboardPanel[]): DashboardPanel['grid'] {
  const w = COLS / 2;
  const top = (x: number) =>
    Math.max(0, ...panels.filter((p) => p.grid.x < x + w && p.grid.x + p.grid.w > x).map((p) => p.grid.y + p.grid.h));
  const x = top(w) < top(0) ? w : 0;
  return { x, y: top(x), w, h: 8 };
}

/** The draft's field a server error names (`panels[2].source.query` → `query`), or null. */
function fieldOf(e: unknown, i: number): { key: string; message: string; position?: number } | null {
  if (!(e instanceof ApiError) || typeof e.details.field !== 'string') return null;
  const prefix = `panels[${i}].`;
  const f = e.details.field;
  if (!f.startsWith(prefix)) return null;
  const path = f.slice(prefix.length);
  const key = path.startsWith('source.')
    ? path.slice(7)
    : path.startsWith('options.')
      ? 'options'
      : path.split(/[.[]/)[0];
  return { key, message: e.message.startsWith(f) ? e.message.slice(f.length + 2) : e.message, position: e.position };
}

/**
 * Add or change one panel: its title, type, the query (with the env and index it runs over) or the
 * saved search it shows, and its type's options. Saved at once with the dashboard's version; an
 * error the server names by field shows under that field.
 */
export function PanelEditor({
  dash,
  panel,
  save,
  onClose,
}: {
  dash: DashboardView;
  panel: DashboardPanel | null;
  save: (change: (d: DashboardView) => DashboardChange) => Promise<DashboardView>;
  onClose: () => void;
}) {
  const [d, setD] = useState(() => draftOf(panel));
  const [err, setErr] = useState<ReturnType<typeof fieldOf>>(null);
  const action = useAsyncAction();
  const { envs, language } = useCatalog();
  const [saved, setSaved] = useState<SavedSearch[]>([]);
  const editor = useRef<QueryEditorHandle>(null);
  const uid = useId();
  const idOf = (k: string) => `${uid}${k}`;
  const errorAt = (k: string) => (err?.key === k ? err.message : undefined);
  const completion = useCallback(() => ({ language, fields: [] }), [language]);
  useEffect(() => {
    get<{ savedSearches: SavedSearch[] }>('/api/saved-searches').then(
      (r) => setSaved(r.savedSearches),
      () => setSaved([]),
    );
  }, []);
  useEffect(() => {
    if (!err) return;
    if (err.key === 'query') editor.current?.focus();
    else document.getElementById(`${uid}${err.key}`)?.focus();
  }, [err, uid]);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => {
    setD((cur) => ({ ...cur, [k]: v }));
    setErr(null);
  };

  const submit = async () => {
    setErr(null);
    const i = panel ? dash.panels.findIndex((p) => p.id === panel.id) : dash.panels.length;
    try {
      await save((cur) => {
        const next = panelOf(d, panel?.id, panel?.grid ?? freePlace(cur.panels));
        const panels = panel ? cur.panels.map((p) => (p.id === panel.id ? next : p)) : [...cur.panels, next];
        return { panels: panels as DashboardPanel[] };
      });
      onClose();
    } catch (e) {
      const f = fieldOf(e, i);
      if (!f) throw e;
      setErr(f);
    }
  };

  const envNames = ['*', ...envs.map((e) => e.name)];
  if (!envNames.includes(d.env)) envNames.push(d.env);
  const indexes = envs.find((e) => e.name === d.env)?.indexes ?? [];
  const queryError = err?.key === 'query' ? err : null;
  return (
    <FormDialog
      id="panel-form"
      wide
      title={panel ? `Edit panel "${panel.title || panel.id}"` : 'Add panel'}
      onClose={onClose}
      onSubmit={submit}
      action={action}
      formClassName="panel-form"
      submitLabel={panel ? 'Save panel' : 'Add panel'}
      canSubmit={d.from === 'saved' ? !!d.savedSearchId : !!d.query.trim()}
    >
      <div className="grid-2">
        <FormField label="Title" id={idOf('title')} error={errorAt('title')}>
          <input
            {...controlProps(idOf('title'), errorAt('title'))}
            value={d.title}
            onChange={(e) => set('title', e.target.value)}
            placeholder="Errors by host"
            autoFocus
          />
        </FormField>
        <FormField label="Visualization" id={idOf('type')} error={errorAt('type')}>
          <select
            {...controlProps(idOf('type'), errorAt('type'))}
            value={d.type}
            onChange={(e) => set('type', e.target.value as PanelType)}
          >
            {PANEL_KINDS.map((k) => (
              <option key={k.type} value={k.type}>
                {k.label}
              </option>
            ))}
          </select>
        </FormField>
      </div>
      <div className="segmented" role="radiogroup" aria-label="Source">
        {(['query', 'saved'] as const).map((k) => (
          <button
            key={k}
            type="button"
            role="radio"
            aria-checked={d.from === k}
            className={d.from === k ? 'on' : ''}
            onClick={() => set('from', k)}
          >
            {k === 'query' ? 'Query' : 'Saved search'}
          </button>
        ))}
      </div>
      {d.from === 'query' ? (
        <>
          <QueryField
            ref={editor}
            label="Query"
            id={idOf('query')}
            placeholder="level=error host=$host$ | timechart count by host"
            value={d.query}
            onChange={(q) => set('query', q)}
            onRun={() => undefined}
            error={queryError}
            completion={completion}
          />
          <div className="grid-2">
            <FormField label="Environment" id={idOf('env')} error={errorAt('env')}>
              <select
                {...controlProps(idOf('env'), errorAt('env'))}
                value={d.env}
                onChange={(e) => setD((cur) => ({ ...cur, env: e.target.value, index: '' }))}
              >
                {envNames.map((n) => (
                  <option key={n} value={n}>
                    {n === '*' ? 'All environments I may read' : n}
                  </option>
                ))}
              </select>
            </FormField>
            <FormField label="Index" id={idOf('index')} error={errorAt('index')}>
              <select
                {...controlProps(idOf('index'), errorAt('index'))}
                value={d.index}
                onChange={(e) => set('index', e.target.value)}
              >
                <option value="">All indexes</option>
                {indexes.map((x) => (
                  <option key={x.name} value={x.name}>
                    {x.name}
                  </option>
                ))}
                {d.index && !indexes.some((x) => x.name === d.index) && <option value={d.index}>{d.index}</option>}
              </select>
            </FormField>
          </div>
          {dash.variables.length > 0 && (
            <p className="muted small">
              Variables: {dash.variables.map((v) => `$${v.name}$`).join(', ')} (a value is inserted as a quoted string).
            </p>
          )}
        </>
      ) : (
        <FormField label="Saved search" id={idOf('savedSearchId')} error={errorAt('savedSearchId')}>
          <select
            {...controlProps(idOf('savedSearchId'), errorAt('savedSearchId'))}
            value={d.savedSearchId}
            onChange={(e) => set('savedSearchId', e.target.value)}
          >
            <option value="">Choose a saved search…</option>
            {saved.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
            {d.savedSearchId && !saved.some((s) => s.id === d.savedSearchId) && (
              <option value={d.savedSearchId}>{d.savedSearchId} (not readable)</option>
            )}
          </select>
        </FormField>
      )}
      <Options d={d} set={set} idOf={idOf} error={errorAt('options')} />
    </FormDialog>
  );
}

/** The options of the chosen type: a time series' style; a single value's trend and thresholds. */
function Options({
  d,
  set,
  idOf,
  error,
}: {
  d: Draft;
  set: <K extends keyof Draft>(k: K, v: Draft[K]) => void;
  idOf: (k: string) => string;
  error?: string;
}) {
  if (d.type === 'timeseries')
    return (
      <FormField label="Style" id={idOf('options')} error={error}>
        <select
          {...controlProps(idOf('options'), error)}
          value={d.style}
          onChange={(e) => set('style', e.target.value as Draft['style'])}
        >
          <option value="line">Lines</option>
          <option value="area">Areas</option>
          <option value="stacked-bar">Stacked bars</option>
        </select>
      </FormField>
    );
  if (d.type !== 'single') return null;
  const th = d.thresholds;
  const put = (i: number, k: 'value' | 'color', v: string) =>
    set(
      'thresholds',
      th.map((t, j) => (j === i ? { ...t, [k]: v } : t)),
    );
  return (
    <fieldset className="fieldset">
      <legend>Single value</legend>
      <label className="check">
        <input type="checkbox" checked={d.trend} onChange={(e) => set('trend', e.target.checked)} />
        Show the change against the previous period
      </label>
      <div className="thresholds" id={idOf('options')} tabIndex={-1}>
        {th.map((t, i) => (
          <div className="threshold-row" key={i}>
            <input
              type="number"
              aria-label={`Threshold ${i + 1} value`}
              value={t.value}
              onChange={(e) => put(i, 'value', e.target.value)}
            />
            <select
              aria-label={`Threshold ${i + 1} colour`}
              value={t.color}
              onChange={(e) => put(i, 'color', e.target.value)}
            >
              {['green', 'yellow', 'orange', 'red', 'blue', 'purple', 'grey'].map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
            <Button
              size="sm"
              variant="ghost"
              icon="x"
              aria-label={`Remove threshold ${i + 1}`}
              onClick={() =>
                set(
                  'thresholds',
                  th.filter((_, j) => j !== i),
                )
              }
            />
          </div>
        ))}
        <Button
          size="sm"
          icon="plus"
          onClick={() => set('thresholds', [...th, { value: '', color: th.length ? 'red' : 'orange' }])}
        >
          Add threshold
        </Button>
      </div>
      {error && (
        <p className="field-error" id={`${idOf('options')}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
