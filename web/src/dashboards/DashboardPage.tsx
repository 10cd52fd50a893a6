import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'wouter';
import { ALL_TIME_FROM } from '../saved/saved';
import { TimePicker } from '../search/TimePicker';
import { Button } from '../ui/Button';
import { Icon } from '../ui/icons';
import { ConfirmDialog } from '../ui/Modal';
import type { DashboardPanel, DashboardView, RunBody } from './dashboard-api';
import { DashboardGrid } from './DashboardGrid';
import { Panel } from './Panel';
import { PanelEditor } from './PanelEditor';
import { useDashboard } from './useDashboard';
import { useDashboardUrl, type DashboardUrl } from './url-state';
import { VariableBar, type VarValues } from './VariableBar';
import '../styles/dashboards.css';

const REFRESH_MS: Record<string, number> = { '10s': 10_000, '1m': 60_000, '5m': 300_000 };
const REFRESH_LABELS: Record<string, string> = { off: 'Off', '10s': '10 s', '1m': '1 min', '5m': '5 min' };

/**
 * Each variable's value in force: the URL's, else its default, else a list's first value, else (a
 * query variable) the first of its values once they have come. Undefined: not known yet.
 */
function valuesOf(d: DashboardView, url: DashboardUrl, firstOptions: Record<string, string>): VarValues | undefined {
  const out: VarValues = {};
  for (const v of d.variables) {
    const given = url.vars[v.name];
    const first = v.kind === 'list' ? v.values?.[0] : v.kind === 'text' ? '' : firstOptions[v.name];
    const value = given?.length
      ? v.multi
        ? given
        : given[0]
      : (v.default ?? (first === undefined ? undefined : v.multi ? [first] : first));
    if (value === undefined) return undefined;
    out[v.name] = value;
  }
  return out;
}

/** `/ui/dashboards/:id`: the panels on their grid, one time range and the variables, refreshed, editable. */
export function DashboardPage() {
  const { id } = useParams<{ id: string }>();
  const { dash, loadError, conflict, reload, save, saveQuietly } = useDashboard(id);
  const [url, setUrl] = useDashboardUrl();
  const [firstOptions, setFirstOptions] = useState<Record<string, string>>({});
  const [editing, setEditing] = useState(false);
  const [editor, setEditor] = useState<DashboardPanel | 'new' | null>(null);
  const [removing, setRemoving] = useState<DashboardPanel | null>(null);
  const [load, setLoad] = useState({ key: '', now: '' });

  const from = url.from ?? dash?.time.from ?? '-24h';
  const toRaw = url.to ?? dash?.time.to ?? 'now';
  const to = toRaw === 'now' ? '' : toRaw;
  const refresh = url.refresh ?? dash?.refresh ?? 'off';
  const values = dash ? valuesOf(dash, url, firstOptions) : undefined;
  const valuesKey = JSON.stringify(values);
  // one `now` for every panel of a load: a new range or new values is a new load (set while
  // rendering, React's "adjust state when a prop changes"); a refresh is a new load of the same
  const loadKey = JSON.stringify([from, to, valuesKey]);
  if (load.key !== loadKey) setLoad({ key: loadKey, now: new Date().toISOString() });
  const now = load.now;
  const reloadNow = useCallback(() => setLoad((l) => ({ ...l, now: new Date().toISOString() })), []);
  useEffect(() => {
    const ms = REFRESH_MS[refresh];
    if (!ms) return;
    const t = setInterval(reloadNow, ms);
    return () => clearInterval(t);
  }, [refresh, reloadNow]);
  const body = useMemo<RunBody | null>(
    () =>
      values && now
        ? { from: from || ALL_TIME_FROM, to: to || 'now', now, vars: JSON.parse(valuesKey) as VarValues }
        : null,
    // valuesKey stands for values
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [from, to, now, valuesKey],
  );

  // kiosk: the shell's chrome hides (styles/dashboards.css), Esc brings it back
  useEffect(() => {
    document.documentElement.classList.toggle('kiosk', url.kiosk);
    if (!url.kiosk) return;
    const esc = (e: KeyboardEvent) =>
      e.key === 'Escape' && !document.querySelector('dialog[open]') && setUrl({ kiosk: false });
    window.addEventListener('keydown', esc);
    return () => {
      window.removeEventListener('keydown', esc);
      document.documentElement.classList.remove('kiosk');
    };
  }, [url.kiosk, setUrl]);

  useEffect(() => {
    if (dash) document.title = `${dash.title} · svc`;
  }, [dash]);

  if (loadError)
    return (
      <div className="page-center">
        <p>{loadError}</p>
        <Link href="/dashboards">All dashboards</Link>
      </div>
    );
  if (!dash)
    return (
      <div className="page-center">
        <span className="spinner" />
      </div>
    );

  const removePanel = (p: DashboardPanel) => save((d) => ({ panels: d.panels.filter((x) => x.id !== p.id) }));
  return (
    <div className={url.kiosk ? 'dash-page kiosk-page' : 'dash-page'} data-testid="dashboard">
      <div className="dash-toolbar">
        <div className="dash-heading">
          <Link href="/dashboards" className="dash-crumb">
            Dashboards
          </Link>
          <Icon name="chevronRight" size={14} className="muted" />
          <h1 className="dash-title">{dash.title}</h1>
          {dash.shared && <span className="badge">Shared</span>}
        </div>
        <div className="dash-controls">
          <TimePicker from={from} to={to} onChange={(f, t) => setUrl({ from: f, to: t || 'now' })} />
          <label className="dash-refresh">
            <Icon name="refresh" size={14} />
            <span className="sr-only">Auto-refresh</span>
            <select
              value={refresh}
              onChange={(e) => setUrl({ refresh: e.target.value as DashboardUrl['refresh'] })}
              aria-label="Auto-refresh"
              data-testid="refresh-interval"
            >
              {Object.entries(REFRESH_LABELS).map(([k, label]) => (
                <option key={k} value={k}>
                  {k === 'off' ? 'Auto-refresh off' : `Every ${label}`}
                </option>
              ))}
            </select>
          </label>
          <Button icon="refresh" aria-label="Refresh now" title="Refresh now" onClick={reloadNow} />
          <Button
            icon="monitor"
            aria-label={url.kiosk ? 'Leave kiosk mode' : 'Kiosk mode'}
            title={url.kiosk ? 'Leave kiosk mode (Esc)' : 'Kiosk mode: full screen, no menus'}
            onClick={() => setUrl({ kiosk: !url.kiosk })}
            data-testid="kiosk"
          />
          {dash.canEdit && !url.kiosk && (
            <>
              {editing && (
                <Button icon="plus" onClick={() => setEditor('new')} data-testid="add-panel">
                  Add panel
                </Button>
              )}
              <Button
                variant={editing ? 'primary' : 'secondary'}
                icon={editing ? 'check' : 'pencil'}
                onClick={() => setEditing(!editing)}
                data-testid="edit-dashboard"
              >
                {editing ? 'Done' : 'Edit'}
              </Button>
            </>
          )}
        </div>
      </div>
      {conflict !== null && (
        <div className="dash-conflict" role="alert" data-testid="version-conflict">
          <Icon name="alert" size={16} />
          <span>
            Someone else changed this dashboard since you opened it (it is now at version {conflict}). Your last change
            was not saved. Reload to see theirs, then make yours again.
          </span>
          <Button size="sm" variant="primary" onClick={reload}>
            Reload
          </Button>
        </div>
      )}
      <VariableBar
        dashId={dash.id}
        variables={dash.variables}
        values={values ?? {}}
        body={body ?? (dash ? { from: from || ALL_TIME_FROM, to: to || 'now', now, vars: {} } : null)}
        onChange={(name, v) => setUrl({ vars: { ...url.vars, [name]: v } })}
        onOptions={(name, o) => o[0] !== undefined && setFirstOptions((f) => (name in f ? f : { ...f, [name]: o[0] }))}
      />
      {editing && (
        <p className="dash-hint muted small">
          Drag a panel by its title bar, resize it by its lower right corner. Changes save at once.
        </p>
      )}
      {dash.panels.length === 0 ? (
        <div className="empty-state">
          <p>This dashboard has no panels yet.</p>
          {dash.canEdit && (
            <Button
              variant="primary"
              icon="plus"
              onClick={() => {
                setEditing(true);
                setEditor('new');
              }}
            >
              Add a panel
            </Button>
          )}
        </div>
      ) : (
        <DashboardGrid
          panels={dash.panels}
          editing={editing}
          onMoved={(moved) =>
            saveQuietly((d) => ({
              panels: d.panels.map((p) => (moved.has(p.id) ? { ...p, grid: moved.get(p.id)! } : p)),
            }))
          }
          render={(p) => (
            <Panel
              dashId={dash.id}
              panel={p}
              body={body}
              editing={editing}
              onEdit={() => setEditor(p)}
              onRemove={() => setRemoving(p)}
            />
          )}
        />
      )}
      {editor && (
        <PanelEditor dash={dash} panel={editor === 'new' ? null : editor} save={save} onClose={() => setEditor(null)} />
      )}
      {removing && (
        <ConfirmDialog
          title="Remove panel"
          message={
            <>
              Remove the panel <strong>{removing.title || removing.id}</strong> from this dashboard?
            </>
          }
          confirmLabel="Remove panel"
          danger
          onConfirm={() => removePanel(removing).then(() => undefined)}
          onClose={() => setRemoving(null)}
        />
      )}
    </div>
  );
}
