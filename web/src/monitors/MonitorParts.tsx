import { useEffect, useRef } from 'react';
import type { CatalogEnv, MonitorPreview } from '../api/types';
import { controlProps, FormField } from '../ui/Field';
import { count, rowsText } from '../ui/format';
import { Icon } from '../ui/icons';
import type { Draft, FieldError, FieldKey } from './draft';

/** What every part of the editor gets: the draft, a setter, and the one field error the server named. */
export interface PartProps {
  d: Draft;
  set: <K extends keyof Draft>(k: K, v: Draft[K]) => void;
  err: FieldError | null;
  idOf: (k: FieldKey) => string;
}

const errorAt = (err: FieldError | null, k: FieldKey) => (err?.key === k ? err.message : undefined);

/** The environment and index pickers, fed by GET /api/catalog as the search page's are. */
export function WherePickers({ d, set, err, idOf, envs }: PartProps & { envs: CatalogEnv[] }) {
  const env = envs.find((e) => e.name === d.env);
  const envNames = envs.map((e) => e.name);
  // a monitor's env the catalog does not list (none of its events yet, or no longer readable) stays shown
  if (!envNames.includes(d.env)) envNames.unshift(d.env);
  const indexes = env?.indexes ?? [];
  return (
    <>
      <FormField label="Environment" id={idOf('env')} error={errorAt(err, 'env')}>
        <select
          {...controlProps(idOf('env'), errorAt(err, 'env'))}
          value={d.env}
          onChange={(e) => {
            set('env', e.target.value);
            set('index', '');
          }}
        >
          {envNames.map((n) => {
            const info = envs.find((e) => e.name === n);
            return (
              <option key={n} value={n}>
                {n}
                {info ? ` (${count(info.events)})` : ''}
              </option>
            );
          })}
        </select>
      </FormField>
      <FormField label="Index" id={idOf('index')} error={errorAt(err, 'index')}>
        <select
          {...controlProps(idOf('index'), errorAt(err, 'index'))}
          value={d.index}
          onChange={(e) => set('index', e.target.value)}
        >
          <option value="">All indexes</option>
          {indexes.map((i) => (
            <option key={i.name} value={i.name}>
              {i.name} ({count(i.events)})
            </option>
          ))}
          {d.index && !indexes.some((i) => i.name === d.index) && <option value={d.index}>{d.index}</option>}
        </select>
      </FormField>
    </>
  );
}

/** A text input in a FormField, showing the server's error for `k`. */
export function TextPart({
  k,
  label,
  placeholder,
  className,
  type,
  autoFocus,
  p,
}: {
  k: Exclude<FieldKey, 'format'>;
  autoFocus?: boolean;
  label: string;
  placeholder?: string;
  className?: string;
  type?: 'number';
  p: PartProps;
}) {
  const error = errorAt(p.err, k);
  return (
    <FormField label={label} id={p.idOf(k)} error={error}>
      <input
        {...controlProps(p.idOf(k), error)}
        className={className}
        type={type}
        min={type === 'number' ? 1 : undefined}
        max={type === 'number' ? 200 : undefined}
        value={p.d[k]}
        onChange={(e) => p.set(k, e.target.value)}
        placeholder={placeholder}
        autoFocus={autoFocus}
      />
    </FormField>
  );
}

/** Threshold or AI judgement, and what each needs. */
export function ConditionPart({ p, aiAvailable }: { p: PartProps; aiAvailable: boolean }) {
  const { d, set } = p;
  return (
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
        <TextPart
          k="threshold"
          label='Fires when (a result column, an operator, a number; per group of the stats "by")'
          className="mono"
          placeholder="count > 10"
          p={p}
        />
      ) : (
        <div className="grid-ai">
          <TextPart k="ai" label="Fires when the LLM judges that…" placeholder="someone is guessing passwords" p={p} />
          <TextPart k="maxRows" label="Rows sent" type="number" p={p} />
        </div>
      )}
      {!aiAvailable && (
        <p className="muted small">
          AI judgements need an LLM provider: set SVC_LLM_URL (Ollama, llama.cpp, any OpenAI-compatible endpoint).
        </p>
      )}
    </fieldset>
  );
}

/**
 * Where a change of state goes. With none, the monitor only records its runs: the editor says so
 * beside the webhook, and once a save was asked for without one, as an alert the save must confirm.
 */
export function NotifyPart({
  p,
  saved,
  bare,
  confirming,
}: {
  p: PartProps;
  /** The saved destinations, redacted (editing). */
  saved: string[];
  /** No destination would be saved. */
  bare: boolean;
  /** A save without destination was asked for once: the next one saves. */
  confirming: boolean;
}) {
  const { d, set, err, idOf } = p;
  const webhookError = errorAt(err, 'webhook');
  return (
    <fieldset className="fieldset">
      <legend>Notify</legend>
      <div className="grid-notify">
        <FormField
          label={
            <>
              Webhook{' '}
              {saved.length > 0 && (
                <span className="muted">(now {saved.join(', ')}; type a new one to replace it)</span>
              )}
            </>
          }
          id={idOf('webhook')}
          error={webhookError}
        >
          <input
            {...controlProps(idOf('webhook'), webhookError)}
            value={d.webhook}
            onChange={(e) => set('webhook', e.target.value)}
            placeholder="https://hooks.slack.com/services/…"
          />
        </FormField>
        <FormField label="Format" id={idOf('format')} error={errorAt(err, 'format')}>
          <select
            {...controlProps(idOf('format'), errorAt(err, 'format'))}
            value={d.format}
            onChange={(e) => set('format', e.target.value as Draft['format'])}
          >
            <option value="json">svc JSON</option>
            <option value="slack">Slack message</option>
          </select>
        </FormField>
        <TextPart k="cooldown" label="Quiet for" placeholder="1h" p={p} />
      </div>
      {bare &&
        (confirming ? (
          <div className="alert alert-warn" role="alert" data-testid="no-destination">
            <Icon name="alert" />
            <span>
              <strong>No destination:</strong> this monitor will only record its runs in its history, and nobody is told
              when it fires. Add a webhook, or save it as it is with the button below.
            </span>
          </div>
        ) : (
          <p className="dest-note small" data-testid="no-destination">
            <Icon name="info" size={14} /> No destination: without a webhook this monitor only records its runs in its
            history.
          </p>
        ))}
    </fieldset>
  );
}

export function PreviewResult({ p }: { p: MonitorPreview }) {
  const firing = p.groups.filter((g) => g.triggered);
  const box = useRef<HTMLDivElement>(null);
  // the answer lands below the form's fold on most screens: bring it into view
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest' });
  }, [p]);
  return (
    <div ref={box} className={firing.length ? 'preview preview-firing' : 'preview'} data-testid="preview" role="status">
      <div className="strong">
        {firing.length
          ? `Would fire now for ${count(firing.length)} of ${count(p.groups.length)} group${p.groups.length === 1 ? '' : 's'}`
          : 'Would not fire now'}
      </div>
      <div className="muted small">
        {rowsText(p.rows)} from {new Date(p.from).toLocaleTimeString()} to {new Date(p.to).toLocaleTimeString()}
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
