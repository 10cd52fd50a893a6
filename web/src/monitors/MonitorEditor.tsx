import { useState } from 'react';
import { api, post } from '../api/client';
import type { Monitor, MonitorPreview } from '../api/types';
import { Button } from '../ui/Button';
import { FormDialog } from '../ui/Modal';
import { TextAreaField, TextField } from '../ui/Field';
import { useAsyncAction } from '../ui/useAsyncAction';

interface Draft {
  name: string;
  query: string;
  env: string;
  index: string;
  every: string;
  window: string;
  kind: 'threshold' | 'ai';
  threshold: string;
  ai: string;
  maxRows: string;
  cooldown: string;
  webhook: string;
  format: 'json' | 'slack';
}

function draftOf(m?: Monitor): Draft {
  const c = m?.condition;
  return {
    name: m?.name ?? '',
    query: m?.query ?? '',
    env: m?.env ?? 'default',
    index: m?.index ?? '',
    every: m?.every ?? '5m',
    window: m?.window ?? '15m',
    kind: c && 'ai' in c ? 'ai' : 'threshold',
    threshold: c && 'threshold' in c ? c.threshold : 'count > 0',
    ai: c && 'ai' in c ? c.ai : '',
    maxRows: c && 'ai' in c && c.maxRows ? String(c.maxRows) : '50',
    cooldown: m?.cooldown ?? '1h',
    webhook: '',
    format: m?.destinations[0]?.format ?? 'json',
  };
}

/** The request body of a draft; webhooks only when typed (a saved one is shown redacted and kept). */
function bodyOf(d: Draft, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: d.name,
    query: d.query,
    env: d.env,
    index: d.index || undefined,
    every: d.every,
    window: d.window,
    condition: d.kind === 'ai' ? { ai: d.ai, maxRows: Number(d.maxRows) || undefined } : { threshold: d.threshold },
    cooldown: d.cooldown,
  };
  if (d.webhook.trim()) body.destinations = [{ webhook: d.webhook.trim(), format: d.format }];
  else if (!editing) body.destinations = [];
  return body;
}

/** Create or change a monitor, with a preview of what it would find right now. */
export function MonitorEditor({
  monitor,
  aiAvailable,
  onClose,
  onSaved,
}: {
  monitor?: Monitor;
  aiAvailable: boolean;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(monitor));
  const action = useAsyncAction();
  const [preview, setPreview] = useState<MonitorPreview | null>(null);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((cur) => ({ ...cur, [k]: v }));

  const save = async () => {
    const body = bodyOf(d, monitor !== undefined);
    if (monitor) await api('PATCH', `/api/monitors/${monitor.id}`, { body });
    else await post('/api/monitors', body);
    onSaved();
  };
  const runPreview = () =>
    action.run(async () => {
      setPreview(null);
      const body = { ...bodyOf(d, false), destinations: undefined, name: d.name || 'preview' };
      setPreview(await post<MonitorPreview>('/api/monitors/preview', body));
    });

  const saved = monitor?.destinations ?? [];
  return (
    <FormDialog
      id="monitor-form"
      wide
      title={monitor ? `Edit monitor "${monitor.name}"` : 'New monitor'}
      onClose={onClose}
      onSubmit={save}
      action={action}
      formClassName="monitor-form"
      submitLabel={monitor ? 'Save' : 'Create monitor'}
      canSubmit={!!d.name.trim() && !!d.query.trim()}
      extraButtons={
        <>
          <Button onClick={runPreview} icon="play" disabled={action.busy || !d.query.trim()}>
            Preview
          </Button>
          <span className="grow" />
        </>
      }
    >
      <TextField
        label="Name"
        value={d.name}
        onChange={(v) => set('name', v)}
        maxLength={200}
        autoFocus
        aria-label="Name"
        placeholder="ssh brute force"
      />
      <TextAreaField
        label="Search"
        className="mono"
        rows={2}
        value={d.query}
        onChange={(v) => set('query', v)}
        aria-label="Search"
        placeholder='sshd "Failed password" | stats count by host'
      />
      <div className="grid-4">
        <TextField label="Environment" value={d.env} onChange={(v) => set('env', v)} aria-label="Environment" />
        <TextField
          label="Index (optional)"
          value={d.index}
          onChange={(v) => set('index', v)}
          aria-label="Index"
          placeholder="all"
        />
        <TextField
          label="Every"
          value={d.every}
          onChange={(v) => set('every', v)}
          aria-label="Every"
          placeholder="5m"
        />
        <TextField
          label="Over the last"
          value={d.window}
          onChange={(v) => set('window', v)}
          aria-label="Window"
          placeholder="15m"
        />
      </div>
      <fieldset className="fieldset">
        <legend>Condition</legend>
        <div className="segmented" role="radiogroup" aria-label="Condition kind">
          <button
            type="button"
            role="radio"
            aria-checked={d.kind === 'threshold'}
            className={d.kind === 'threshold' ? 'on' : ''}
            onClick={() => set('kind', 'threshold')}
          >
            Threshold
          </button>
          <button
            type="button"
            role="radio"
            aria-checked={d.kind === 'ai'}
            className={d.kind === 'ai' ? 'on' : ''}
            onClick={() => set('kind', 'ai')}
            disabled={!aiAvailable}
            title={aiAvailable ? '' : 'No LLM provider is configured (SVC_LLM_URL)'}
          >
            AI judgement
          </button>
        </div>
        {d.kind === 'threshold' ? (
          <label className="field">
            <span>Fires when (a result column, an operator, a number; per group of the stats "by")</span>
            <input
              className="mono"
              value={d.threshold}
              onChange={(e) => set('threshold', e.target.value)}
              aria-label="Threshold"
              placeholder="count > 10"
            />
          </label>
        ) : (
          <div className="grid-ai">
            <TextField
              label="Fires when the LLM judges that…"
              value={d.ai}
              onChange={(v) => set('ai', v)}
              aria-label="AI condition"
              placeholder="someone is guessing passwords"
            />
            <TextField
              label="Rows sent"
              type="number"
              min={1}
              max={200}
              value={d.maxRows}
              onChange={(v) => set('maxRows', v)}
              aria-label="Rows sent"
            />
          </div>
        )}
        {!aiAvailable && (
          <p className="muted small">
            AI judgements need an LLM provider: set SVC_LLM_URL (Ollama, llama.cpp, any OpenAI-compatible endpoint).
          </p>
        )}
      </fieldset>
      <fieldset className="fieldset">
        <legend>Notify</legend>
        <div className="grid-notify">
          <label className="field">
            <span>
              Webhook{' '}
              {saved.length > 0 && (
                <span className="muted">
                  (now {saved.map((x) => x.webhook).join(', ')}; type a new one to replace it)
                </span>
              )}
            </span>
            <input
              value={d.webhook}
              onChange={(e) => set('webhook', e.target.value)}
              aria-label="Webhook"
              placeholder="https://hooks.slack.com/services/…"
            />
          </label>
          <label className="field">
            <span>Format</span>
            <select
              value={d.format}
              onChange={(e) => set('format', e.target.value as Draft['format'])}
              aria-label="Format"
            >
              <option value="json">svc JSON</option>
              <option value="slack">Slack message</option>
            </select>
          </label>
          <TextField
            label="Quiet for"
            value={d.cooldown}
            onChange={(v) => set('cooldown', v)}
            aria-label="Cooldown"
            placeholder="1h"
          />
        </div>
      </fieldset>
      {preview && <PreviewResult p={preview} />}
    </FormDialog>
  );
}

function PreviewResult({ p }: { p: MonitorPreview }) {
  const firing = p.groups.filter((g) => g.triggered);
  return (
    <div className={firing.length ? 'preview preview-firing' : 'preview'} data-testid="preview">
      <div className="strong">
        {firing.length
          ? `Would fire now for ${firing.length} of ${p.groups.length} group${p.groups.length === 1 ? '' : 's'}`
          : 'Would not fire now'}
      </div>
      <div className="muted small">
        {p.rows} {p.rows === 1 ? 'row' : 'rows'} from {new Date(p.from).toLocaleTimeString()} to{' '}
        {new Date(p.to).toLocaleTimeString()}
      </div>
      {p.ai && (
        <p className="small">
          <span className="badge badge-ai">{p.ai.severity}</span> {p.ai.summary}
        </p>
      )}
      {p.groups.length > 1 || p.groups[0]?.group !== '*' ? (
        <ul className="preview-groups">
          {p.groups.slice(0, 20).map((g) => (
            <li key={g.group} className={g.triggered ? 'hit' : ''}>
              <span className="mono">{g.group}</span> <span className="muted">{g.value}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
