import { useState } from 'react';
import { api, get } from '../api/client';
import type { Env, IngestToken } from '../api/types';
import { Field, TextField } from '../ui/Field';
import { relativeTime } from '../ui/format';
import { FormDialog } from '../ui/Modal';
import { useAsyncAction } from '../ui/useAsyncAction';
import { CredentialsPage, type CredentialKind } from './credentials';
import { useLoad } from './useLoad';

const INGEST_TOKENS: CredentialKind<IngestToken> = {
  path: '/api/admin/ingest-tokens',
  listKey: 'ingestTokens',
  title: 'Ingest tokens',
  description:
    'Credentials for shippers (Filebeat, Vector, Fluent Bit, OpenTelemetry, syslog). A token can only push logs, into the environment and index it is pinned to.',
  testId: 'ingest-tokens',
  short: 'Token',
  noun: 'ingest token',
  columns: ['Name', 'Environment', 'Index', 'Token', 'Last used'],
  cells: (t) => (
    <>
      <td className="strong">{t.name}</td>
      <td>{t.env}</td>
      <td>{t.index ?? <span className="muted">chosen by the request</span>}</td>
      <td className="mono small">svi_…{t.lastFour}</td>
      <td>{relativeTime(t.lastUsedAt)}</td>
    </>
  ),
  empty: 'No ingest tokens yet. Create one for each shipper.',
  create: (p) => <CreateTokenDialog {...p} />,
  usage: (secret) => (
    <p className="muted small">
      Try it:{' '}
      <code>
        curl {location.origin}/api/ingest -H 'authorization: Bearer {secret.slice(0, 8)}…' -d '{'{"message":"hello"}'}'
      </code>
    </p>
  ),
  consequence: 'Shippers using it are refused at once.',
};

export function IngestTokensPage() {
  return <CredentialsPage kind={INGEST_TOKENS} />;
}

/** Until the list of environments has come, the one every install has. */
const DEFAULT_ENVS = [{ name: 'default' }];

function CreateTokenDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (t: IngestToken) => void }) {
  const envs = useLoad(() => get<{ envs: Env[] }>('/api/admin/envs'));
  const [name, setName] = useState('');
  const [env, setEnv] = useState('default');
  const [index, setIndex] = useState('');
  const action = useAsyncAction();
  const submit = async () =>
    onCreated(
      await api<IngestToken>('POST', '/api/admin/ingest-tokens', { body: { name, env, index: index || undefined } }),
    );
  return (
    <FormDialog
      id="create-token"
      title="Create ingest token"
      onClose={onClose}
      onSubmit={submit}
      action={action}
      submitLabel="Create token"
      canSubmit={!!name.trim()}
    >
      <TextField
        label="Name"
        value={name}
        onChange={setName}
        required
        autoFocus
        aria-label="Name"
        placeholder="web-filebeat"
      />
      <Field label="Environment">
        <select value={env} onChange={(e) => setEnv(e.target.value)} aria-label="Environment">
          {(envs.data?.envs ?? DEFAULT_ENVS)
            .filter((x) => !x.name.startsWith('_'))
            .map((x) => (
              <option key={x.name}>{x.name}</option>
            ))}
        </select>
      </Field>
      <TextField
        label='Index (optional: when empty, each request chooses, else "main")'
        value={index}
        onChange={setIndex}
        aria-label="Index"
        placeholder="web"
      />
    </FormDialog>
  );
}
