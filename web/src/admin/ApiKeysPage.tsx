import { useState } from 'react';
import { api, get } from '../api/client';
import type { Allowlists, ApiKey, Scope, Settings } from '../api/types';
import { TextAreaField, TextField } from '../ui/Field';
import { relativeTime, shortDate } from '../ui/format';
import { Icon } from '../ui/icons';
import { FormDialog } from '../ui/Modal';
import { toggled } from '../ui/sets';
import { useAsyncAction } from '../ui/useAsyncAction';
import { CredentialsPage, type CredentialKind } from './credentials';
import { AllowlistFields, AllowSummary } from './parts';
import { useLoad } from './useLoad';

const SCOPES: { id: Scope; label: string; text: string }[] = [
  {
    id: 'standard',
    label: 'Standard API',
    text: 'Search and the other non-admin /api/* calls, within the allowlists below.',
  },
  { id: 'admin', label: 'Admin API', text: 'Everything under /api/admin/*; implies Standard API.' },
  { id: 'mcp', label: 'MCP server', text: 'The /mcp endpoint only, for AI assistants; limited to the allowed tools.' },
];

const LABEL: Record<Scope, string> = { standard: 'Standard', admin: 'Admin', mcp: 'MCP' };

/** Where a key's MCP calls are recorded: its `_svcmcp` records, as a search. */
function mcpActivityHref(k: ApiKey): string {
  const q = new URLSearchParams({ q: `key_id="${k.id}"`, env: '_system', index: '_svcmcp', from: '-30d' });
  return `/ui/search?${q}`;
}

const OWNER: Record<Exclude<ApiKey['ownerState'], 'active'>, string> = {
  removed: 'owner removed',
  disabled: 'owner disabled',
  not_admin: 'owner not admin',
};

/** The owner's problem, when there is one: the key is refused (an Admin API key of an owner no longer admin too). */
function OwnerBadge({ k }: { k: ApiKey }) {
  if (k.ownerState === 'active') return null;
  const refused = k.ownerState !== 'not_admin' || k.scopes.includes('admin');
  const title = refused
    ? 'Refused: the user this key belongs to cannot back it'
    : 'The user this key belongs to is no longer an admin; the key keeps its non-admin scopes';
  return (
    <span className={`badge ${refused ? 'badge-expired' : 'badge-disabled'}`} title={title} data-testid="owner-state">
      {OWNER[k.ownerState]}
    </span>
  );
}

const API_KEYS: CredentialKind<ApiKey> = {
  path: '/api/admin/api-keys',
  listKey: 'apiKeys',
  title: 'API keys',
  description:
    'Keys for scripts, dashboards and AI assistants. A key acts with its scopes and sees only the data its allowlists name.',
  testId: 'api-keys',
  short: 'Key',
  noun: 'API key',
  columns: ['Name', 'Scopes', 'Last used', 'Expires'],
  cells: (k) => (
    <>
      <td className="name-cell">
        <div className="strong">{k.name}</div>
        {k.purpose && <div className="muted small clamp">{k.purpose}</div>}
        <div className="small">
          <span className="mono">svk_…{k.lastFour}</span> · <AllowSummary allow={k.allow} />
        </div>
        {/* here rather than beside the state: a wider state column pushed the actions out of view */}
        <OwnerBadge k={k} />
      </td>
      <td>
        {k.scopes.map((s) => (
          <span key={s} className={`badge badge-scope-${s}`}>
            {LABEL[s]}
          </span>
        ))}
      </td>
      <td title={k.lastUsedAt ?? ''}>{relativeTime(k.lastUsedAt)}</td>
      <td title={k.expiresAt ?? ''}>
        {k.expiresAt ? (
          <>
            <div>{shortDate(k.expiresAt)}</div>
            <div className="muted small">{relativeTime(k.expiresAt)}</div>
          </>
        ) : (
          <span className="muted">never</span>
        )}
      </td>
    </>
  ),
  actions: (k) =>
    k.scopes.includes('mcp') && (
      <a
        className="btn btn-ghost btn-sm"
        href={mcpActivityHref(k)}
        title="This key's MCP calls, as recorded in _svcmcp"
      >
        <Icon name="activity" size={14} /> MCP calls
      </a>
    ),
  empty: 'No API keys yet. Create one for a script, a dashboard or an AI assistant.',
  create: (p) => <CreateKeyDialog {...p} />,
  usage: (secret) => (
    <p className="muted small">
      Use it as <code>Authorization: Bearer {secret.slice(0, 8)}…</code>
    </p>
  ),
  consequence: 'Every client using it is refused at once. This cannot be undone.',
};

export function ApiKeysPage() {
  return <CredentialsPage kind={API_KEYS} />;
}

function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (k: ApiKey) => void }) {
  const { data: settings } = useLoad(() => get<Settings>('/api/admin/settings'));
  return settings ? <CreateKeyForm settings={settings.settings} onClose={onClose} onCreated={onCreated} /> : null;
}

function CreateKeyForm({
  settings,
  onClose,
  onCreated,
}: {
  settings: Settings['settings'];
  onClose: () => void;
  onCreated: (k: ApiKey) => void;
}) {
  const [name, setName] = useState('');
  const [purpose, setPurpose] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(['standard']));
  const [expires, setExpires] = useState(String(settings.apiKeyExpiryDefaultDays ?? 90));
  const max = scopes.has('admin') ? settings.adminKeyMaxDays : null;
  const [allow, setAllow] = useState<Allowlists>({ envs: ['*'], indexes: ['*'], tools: ['*'] });
  const action = useAsyncAction();
  const submit = async () => {
    const body = {
      name,
      purpose: purpose || undefined,
      scopes: [...scopes],
      expiresInDays: expires ? Number(expires) : null,
      allow,
    };
    onCreated(await api<ApiKey>('POST', '/api/admin/api-keys', { body }));
  };
  const toggle = (s: Scope) => setScopes((cur) => toggled(cur, s));
  return (
    <FormDialog
      id="create-key"
      title="Create API key"
      onClose={onClose}
      onSubmit={submit}
      action={action}
      submitLabel="Create key"
      canSubmit={!!name.trim() && scopes.size > 0}
    >
      <TextField
        label="Name"
        value={name}
        onChange={setName}
        required
        maxLength={100}
        autoFocus
        aria-label="Name"
        placeholder="ci-dashboards"
      />
      <TextAreaField
        label="Purpose (optional)"
        value={purpose}
        onChange={setPurpose}
        maxLength={1000}
        rows={2}
        aria-label="Purpose"
        placeholder="What the key is for, who owns it"
      />
      <fieldset className="fieldset">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label className="check scope-check" key={s.id}>
            <input type="checkbox" checked={scopes.has(s.id)} onChange={() => toggle(s.id)} aria-label={s.label} />
            <span>
              <strong>{s.label}</strong>
              <span className="muted small"> {s.text}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <TextField
        label={max ? `Expires after (days; Admin API keys at most ${max})` : 'Expires after (days; empty: never)'}
        type="number"
        min={1}
        max={max ?? 3650}
        value={expires}
        onChange={setExpires}
        aria-label="Expiry days"
      />
      <AllowlistFields value={allow} onChange={setAllow} tools={scopes.has('mcp')} />
    </FormDialog>
  );
}
