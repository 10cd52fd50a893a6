import { useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../api/client';
import { AdminTable, PageHeader } from '../admin/parts';
import { useLoad } from '../admin/useLoad';
import { useSession } from '../app/session';
import { Button, DeleteButton } from '../ui/Button';
import { ErrorLine } from '../ui/ErrorLine';
import { TextField } from '../ui/Field';
import { relativeTime } from '../ui/format';
import { Icon } from '../ui/icons';
import { ListFilter } from '../ui/ListFilter';
import { ConfirmDelete, FormDialog } from '../ui/Modal';
import { useNotifyAction, useToast } from '../ui/toast';
import { useAsyncAction } from '../ui/useAsyncAction';
import {
  createDashboard,
  dashboardHref,
  deleteDashboard,
  download,
  duplicateDashboard,
  exportDashboard,
  exportFileName,
  homeDashboard,
  importDashboard,
  listDashboards,
  setShared,
  type DashboardSummary,
  type Imported,
} from './dashboards-list-api';
import '../styles/saved.css';
import '../styles/dashboards-list.css';

/** Dashboards: the caller's own and the shared ones (admins: all), by title; new, import, and per row open, copy, export, delete. */
export function DashboardsPage() {
  const { data, error, reload } = useLoad(listDashboards);
  const home = useLoad(homeDashboard).data?.id ?? null;
  const { me } = useSession();
  const [, navigate] = useLocation();
  const [text, setText] = useState('');
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [deleting, setDeleting] = useState<DashboardSummary | null>(null);
  const notify = useNotifyAction(reload);
  const all = data?.dashboards ?? [];
  const t = text.trim().toLowerCase();
  const shown = all.filter(
    (d) => t === '' || d.title.toLowerCase().includes(t) || d.owner.name.toLowerCase().includes(t),
  );
  const mine = (d: DashboardSummary) => d.owner.kind === me.kind && d.owner.id === me.id;

  return (
    <div className="list-page">
      <PageHeader
        title="Dashboards"
        description="Panels of searches over one time range, yours and the ones others share. Every panel runs with the access of whoever opens it."
        action={
          <div className="header-actions">
            <Button icon="upload" onClick={() => setImporting(true)}>
              Import
            </Button>
            <Button variant="primary" icon="plus" onClick={() => setCreating(true)}>
              New dashboard
            </Button>
          </div>
        }
      />
      <ErrorLine error={error} />
      {all.length > 0 && (
        <ListFilter
          label="Filter by title or owner"
          text={text}
          setText={setText}
          shown={shown.length}
          total={all.length}
          noun={['dashboard', 'dashboards']}
        />
      )}
      <AdminTable
        testId="dashboards"
        className="saved-table dash-table"
        columns={['Title', 'Owner', 'Shared', 'Updated']}
        empty={
          data &&
          shown.length === 0 &&
          (all.length === 0 ? (
            <div className="empty-state">
              <Icon name="chart" size={28} />
              <strong>No dashboards yet</strong>
              <span>
                A dashboard puts several searches on one screen: time series, single values with a trend, tables, bars,
                pies and event lists, all over one time range. Start an empty one, or import a file exported from
                another svc.
              </span>
              <Button variant="secondary" icon="plus" onClick={() => setCreating(true)}>
                New dashboard
              </Button>
            </div>
          ) : (
            <>Nothing matches this filter.</>
          ))
        }
      >
        {shown.map((d) => (
          <Row
            key={d.id}
            d={d}
            mine={mine(d)}
            home={d.id === home}
            onShare={() =>
              void notify(() => setShared(d, !d.shared), `${d.title} is ${d.shared ? 'private' : 'shared'} now`)
            }
            onDuplicate={() =>
              void notify(
                () => duplicateDashboard(d),
                (c) => `Copied as “${c.title}”`,
              )
            }
            onExport={() => void notify(async () => download(exportFileName(d.title), await exportDashboard(d.id)))}
            onDelete={() => setDeleting(d)}
          />
        ))}
      </AdminTable>
      {creating && <NewDialog onClose={() => setCreating(false)} onCreated={(id) => navigate(dashboardHref(id))} />}
      {importing && (
        <ImportDialog
          onClose={() => setImporting(false)}
          onImported={() => reload()}
          onOpen={(id) => navigate(dashboardHref(id))}
        />
      )}
      {deleting && (
        <ConfirmDelete
          what="dashboard"
          name={deleting.title}
          confirmLabel="Delete"
          consequence={
            deleting.shared
              ? 'It goes for everyone it is shared with, too. Export it first to keep a copy.'
              : 'Export it first to keep a copy.'
          }
          onConfirm={() => notify(() => deleteDashboard(deleting.id), `${deleting.title} deleted`)}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}

interface RowProps {
  d: DashboardSummary;
  mine: boolean;
  /** The home dashboard of Admin → General: what `/ui/` opens. */
  home: boolean;
  onShare: () => void;
  onDuplicate: () => void;
  onExport: () => void;
  onDelete: () => void;
}

/** One dashboard: title and size, whose, shared, when changed; open, copy and export for all, changes for who may. */
function Row({ d, mine, home, onShare, onDuplicate, onExport, onDelete }: RowProps) {
  const href = dashboardHref(d.id);
  return (
    <tr data-dashboard={d.title} data-id={d.id} data-editable={d.canEdit ? 'true' : 'false'}>
      <td className="name-cell">
        <Link href={href} className="strong saved-name">
          {d.title}
        </Link>
        {home && (
          <span className="badge badge-home" title="Admin → General: svc opens this dashboard first">
            Home
          </span>
        )}
        {d.description && <div className="small saved-description clamp">{d.description}</div>}
        <div className="muted small">
          {d.panels} {d.panels === 1 ? 'panel' : 'panels'}
        </div>
      </td>
      <td>{mine ? <span className="strong">You</span> : d.owner.name}</td>
      <td>
        {d.canEdit ? (
          <label className="switch" title={d.shared ? 'Shared: everyone can open it' : 'Private: only you see it'}>
            <input
              type="checkbox"
              role="switch"
              checked={d.shared}
              onChange={onShare}
              aria-label={`Share ${d.title}`}
            />
            <span>{d.shared ? 'Shared' : 'Private'}</span>
          </label>
        ) : (
          <span className="badge badge-readonly" title="Shared with you: you can open, copy and export it">
            <Icon name="lock" size={12} /> Read-only
          </span>
        )}
      </td>
      <td className="small" title={d.updatedAt}>
        {relativeTime(d.updatedAt)}
      </td>
      <td className="actions-col">
        <Link href={href} className="btn btn-secondary btn-sm" aria-label={`Open ${d.title}`}>
          <Icon name="play" size={14} /> Open
        </Link>
        <Button
          size="sm"
          icon="copy"
          onClick={onDuplicate}
          aria-label={`Duplicate ${d.title}`}
          title="A private copy of your own"
        >
          Duplicate
        </Button>
        <Button
          size="sm"
          icon="download"
          onClick={onExport}
          aria-label={`Export ${d.title}`}
          title="Download it as a JSON file, to import here or into another svc"
        >
          Export
        </Button>
        {d.canEdit && <DeleteButton name={d.title} onClick={onDelete} />}
      </td>
    </tr>
  );
}

/** A title, then the new empty dashboard's own page, where panels are added. */
function NewDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) {
  const [title, setTitle] = useState('');
  const action = useAsyncAction();
  return (
    <FormDialog
      id="new-dashboard-form"
      title="New dashboard"
      onClose={onClose}
      onSubmit={async () => onCreated((await createDashboard(title.trim())).id)}
      action={action}
      canSubmit={title.trim() !== ''}
      submitIcon="plus"
      submitLabel="Create"
    >
      <TextField
        label="Title"
        value={title}
        onChange={setTitle}
        maxLength={200}
        autoFocus
        placeholder="e.g. Web: errors and latency"
      />
      <p className="muted small">It starts empty and private: add panels and variables on its page, then share it.</p>
    </FormDialog>
  );
}

/**
 * An export file, chosen or pasted, sent to POST /import. The server checks it whole before storing
 * anything, and names the place of a problem (`panels[1].type: …`): shown as it says it, with the
 * place apart, since it is what to look for in the file. Warnings (saved-search panels made inline)
 * stay on screen after the import, with the way to the new dashboard.
 */
function ImportDialog({
  onClose,
  onImported,
  onOpen,
}: {
  onClose: () => void;
  onImported: (d: Imported) => void;
  onOpen: (id: string) => void;
}) {
  const [json, setJson] = useState('');
  const [fileName, setFileName] = useState('');
  const [place, setPlace] = useState<string | null>(null);
  const [done, setDone] = useState<Imported | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const action = useAsyncAction();
  const toast = useToast();

  const submit = async () => {
    setPlace(null);
    let file: unknown;
    try {
      file = JSON.parse(json);
    } catch (e) {
      throw new Error(`This is not JSON: ${(e as Error).message}`, { cause: e });
    }
    try {
      const d = await importDashboard(file);
      toast('ok', `Imported “${d.title}”`);
      onImported(d);
      if (d.warnings.length === 0) onClose();
      else setDone(d);
    } catch (e) {
      if (e instanceof ApiError && typeof e.details.field === 'string') setPlace(e.details.field);
      throw e;
    }
  };
  const pick = async (f: File | undefined) => {
    if (!f) return;
    setFileName(f.name);
    setJson(await f.text());
  };

  if (done)
    return (
      <FormDialog
        id="import-dashboard-form"
        title="Dashboard imported"
        onClose={onClose}
        onSubmit={async () => onOpen(done.id)}
        action={action}
        submitIcon="external"
        submitLabel="Open it"
      >
        <p>
          <strong>{done.title}</strong> is imported, private to you. Some panels changed on the way in:
        </p>
        <ul className="import-warnings" data-testid="import-warnings">
          {done.warnings.map((w) => (
            <li key={w}>
              <Icon name="info" size={14} /> {w}
            </li>
          ))}
        </ul>
      </FormDialog>
    );
  return (
    <FormDialog
      id="import-dashboard-form"
      title="Import a dashboard"
      onClose={onClose}
      onSubmit={submit}
      action={action}
      canSubmit={json.trim() !== ''}
      submitIcon="upload"
      submitLabel="Import"
      wide
    >
      {place && (
        <p className="import-place" data-testid="import-place">
          At <code>{place}</code> in the file. Nothing was imported.
        </p>
      )}
      <div className="import-file">
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          aria-label="Dashboard file"
          className="sr-only"
          onChange={(e) => void pick(e.target.files?.[0])}
        />
        <Button icon="upload" onClick={() => fileInput.current?.click()}>
          Choose a file…
        </Button>
        <span className="muted small">{fileName || 'an export file (.json), or paste its text below'}</span>
      </div>
      <label className="field">
        <span>Export JSON</span>
        <textarea
          className="mono import-json"
          value={json}
          onChange={(e) => {
            setJson(e.target.value);
            setFileName('');
          }}
          spellCheck={false}
          rows={12}
          placeholder='{"format": 1, "title": "…", "panels": […]}'
          aria-label="Export JSON"
        />
      </label>
      <p className="muted small">
        The dashboard is checked whole before anything is stored, and imported private to you.
      </p>
    </FormDialog>
  );
}
