import { useState } from 'react';
import { get, patch, post } from '../api/client';
import type { Settings, SweepReport } from '../api/types';
import { Button } from '../ui/Button';
import { count, duration } from '../ui/format';
import { Field, TextField } from '../ui/Field';
import { useToast } from '../ui/toast';
import { useAsyncAction } from '../ui/useAsyncAction';
import { PageHeader } from './parts';
import { ErrorLine } from '../ui/ErrorLine';
import { SsoSettings } from './SsoSettings';
import { listDashboards } from '../dashboards/dashboards-list-api';
import { useLoad } from './useLoad';

const SOURCE: Record<string, string> = {
  SVC_RETENTION_DEFAULT_DAYS: 'set by SVC_RETENTION_DEFAULT_DAYS, which wins over this page',
  settings: 'set on this page',
  none: 'no default is set',
};

/** Admin → General: retention, the sweep, API key expiry, the home dashboard, single sign-on. */
export function GeneralPage() {
  const { data, error, reload } = useLoad(() => get<Settings>('/api/admin/settings'));
  return (
    <div className="admin-page">
      <PageHeader
        title="General"
        description="Settings for the whole service. A setting from the environment (SVC_*) wins over this page."
      />
      <ErrorLine error={error} />
      {data && (
        <>
          <RetentionSettings settings={data} onSaved={reload} />
          <ApiKeyExpirySettings settings={data} onSaved={reload} />
          <HomeDashboardSettings settings={data} onSaved={reload} />
          <SweepNow />
          <SsoSettings saved={data.settings.saml} status={data.sso} onSaved={reload} />
        </>
      )}
    </div>
  );
}

/** A settings form's submit: one PATCH of what `body` gives, a toast and `onSaved`, or the error in the form. */
function useSettingsSave(body: () => Record<string, unknown>, onSaved: () => void) {
  const action = useAsyncAction();
  const toast = useToast();
  const save = action.submit(async () => {
    await patch('/api/admin/settings', body());
    toast('ok', 'Settings saved');
    onSaved();
  });
  return { error: action.error, save };
}

function RetentionSettings({ settings, onSaved }: { settings: Settings; onSaved: () => void }) {
  const [days, setDays] = useState(
    settings.settings.retentionDefaultDays ? String(settings.settings.retentionDefaultDays) : '',
  );
  const eff = settings.effective;
  const fromEnv = eff.retentionDefaultSource === 'SVC_RETENTION_DEFAULT_DAYS';
  const { error, save } = useSettingsSave(() => ({ retentionDefaultDays: days ? Number(days) : null }), onSaved);
  return (
    <form className="card card-pad form" onSubmit={save}>
      <h2>Retention</h2>
      <ErrorLine error={error} />
      <p className="muted">
        In force: <strong>{eff.retentionDefaultDays ? `${eff.retentionDefaultDays} days` : 'keep forever'}</strong> (
        {SOURCE[eff.retentionDefaultSource] ?? eff.retentionDefaultSource}). An environment's own retention overrides
        it.
      </p>
      <TextField
        label="Default retention in days (empty: keep forever)"
        fieldClassName="narrow"
        type="number"
        min={1}
        max={36500}
        value={days}
        onChange={setDays}
        aria-label="Default retention days"
        disabled={fromEnv}
      />
      <div>
        <Button type="submit" variant="primary" disabled={fromEnv}>
          Save
        </Button>
      </div>
    </form>
  );
}

const daysText = (v: number | null | undefined) => (v ? String(v) : '');

/** The expiry a new key gets when none is asked for, and the longest an Admin API key may last. */
function ApiKeyExpirySettings({ settings, onSaved }: { settings: Settings; onSaved: () => void }) {
  const [def, setDef] = useState(daysText(settings.settings.apiKeyExpiryDefaultDays));
  const [max, setMax] = useState(daysText(settings.settings.adminKeyMaxDays));
  const { error, save } = useSettingsSave(
    () => ({ apiKeyExpiryDefaultDays: def ? Number(def) : null, adminKeyMaxDays: max ? Number(max) : null }),
    onSaved,
  );
  return (
    <form className="card card-pad form" onSubmit={save}>
      <h2>API key expiry</h2>
      <ErrorLine error={error} />
      <p className="muted">
        Applies to keys created from now on. A key also stops working when the user it belongs to is deleted or
        disabled, and an Admin API key when its user is no longer an admin.
      </p>
      <TextField
        label="Default expiry in days (empty: never)"
        fieldClassName="narrow"
        type="number"
        min={1}
        max={3650}
        value={def}
        onChange={setDef}
        aria-label="Default key expiry days"
      />
      <TextField
        label="Longest an Admin API key may last, in days (empty: no maximum)"
        fieldClassName="narrow"
        type="number"
        min={1}
        max={3650}
        value={max}
        onChange={setMax}
        aria-label="Admin key maximum days"
      />
      <div>
        <Button type="submit" variant="primary">
          Save
        </Button>
      </div>
    </form>
  );
}

/**
 * The dashboard `/ui/` opens instead of the search page: one of the shared dashboards (everyone must be
 * able to open it; the server refuses another). One set but no longer shared shows as such.
 */
function HomeDashboardSettings({ settings, onSaved }: { settings: Settings; onSaved: () => void }) {
  const { data } = useLoad(listDashboards);
  const current = settings.settings.homeDashboard ?? '';
  const [id, setId] = useState(current);
  const { error, save } = useSettingsSave(() => ({ homeDashboard: id || null }), onSaved);
  const shared = (data?.dashboards ?? []).filter((d) => d.shared || d.id === current);
  return (
    <form className="card card-pad form" onSubmit={save}>
      <h2>Home dashboard</h2>
      <ErrorLine error={error} />
      <p className="muted">
        What everyone sees first on opening svc. Only a shared dashboard can be the home; without one, svc opens the
        search page.
      </p>
      <Field label="Home dashboard" className="narrow">
        <select value={id} onChange={(e) => setId(e.target.value)} aria-label="Home dashboard">
          <option value="">None: the search page</option>
          {shared.map((d) => (
            <option key={d.id} value={d.id}>
              {d.title}
              {d.shared ? '' : ' (private now: not opened)'}
            </option>
          ))}
        </select>
      </Field>
      <div>
        <Button type="submit" variant="primary" disabled={id === current}>
          Save
        </Button>
      </div>
    </form>
  );
}

function SweepNow() {
  const [sweep, setSweep] = useState<SweepReport | null>(null);
  const action = useAsyncAction();
  const run = () => action.run(async () => setSweep(await post<SweepReport>('/api/admin/gc')));
  return (
    <div className="card card-pad">
      <h2>Retention sweep</h2>
      <p className="muted">
        The sweep deletes whole blocks whose newest event is past its environment's retention. It runs on a timer; run
        it now to free space at once.
      </p>
      <ErrorLine error={action.error} />
      <Button onClick={run} disabled={action.busy} icon="refresh">
        {action.busy ? 'Sweeping…' : 'Sweep now'}
      </Button>
      {sweep && (
        <div className="sweep-report" data-testid="sweep-report">
          Deleted <strong>{count(sweep.deletedEvents)}</strong> events in <strong>{count(sweep.deletedBlocks)}</strong>{' '}
          blocks ({duration(sweep.tookMs)}).
        </div>
      )}
      {sweep && sweep.blocks.length > 0 && (
        <table className="data-table sweep-blocks">
          <thead>
            <tr>
              <th>Environment</th>
              <th>Index</th>
              <th>Day</th>
              <th className="num">Events</th>
              <th>Newest event</th>
            </tr>
          </thead>
          <tbody>
            {sweep.blocks.map((b) => (
              <tr key={b.block}>
                <td>{b.env}</td>
                <td>{b.index}</td>
                <td>{b.day}</td>
                <td className="num">{count(b.events)}</td>
                <td className="mono">{b.maxTime}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
