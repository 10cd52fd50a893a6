import { useState, type ReactNode } from 'react';
import type { Allowlists } from '../api/types';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { Icon } from '../ui/icons';
import { Modal } from '../ui/Modal';

export function PageHeader({
  title,
  description,
  action,
}: {
  title: string;
  description: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        <p className="muted">{description}</p>
      </div>
      {action}
    </div>
  );
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge badge-${state}`}>{state}</span>;
}

/** A list of names typed as `a, b, c`; `*` means all. */
export function parseList(text: string): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? [...new Set(items)] : ['*'];
}

export function listText(list: string[] | undefined): string {
  return (list ?? ['*']).join(', ');
}

export function AllowlistFields({
  value,
  onChange,
  tools,
}: {
  value: Allowlists;
  onChange: (a: Allowlists) => void;
  tools: boolean;
}) {
  const [text, setText] = useState({
    envs: listText(value.envs),
    indexes: listText(value.indexes),
    tools: listText(value.tools),
  });
  const set = (k: keyof Allowlists, v: string) => {
    const next = { ...text, [k]: v };
    setText(next);
    onChange({ envs: parseList(next.envs), indexes: parseList(next.indexes), tools: parseList(next.tools) });
  };
  return (
    <fieldset className="fieldset">
      <legend>Access</legend>
      <p className="muted small">
        Comma-separated names; <code>*</code> allows all.
      </p>
      <div className="grid-2">
        <label className="field">
          <span>Environments</span>
          <input value={text.envs} onChange={(e) => set('envs', e.target.value)} aria-label="Allowed environments" />
        </label>
        <label className="field">
          <span>Indexes</span>
          <input value={text.indexes} onChange={(e) => set('indexes', e.target.value)} aria-label="Allowed indexes" />
        </label>
      </div>
      {tools && (
        <label className="field">
          <span>MCP tools</span>
          <input value={text.tools} onChange={(e) => set('tools', e.target.value)} aria-label="Allowed MCP tools" />
        </label>
      )}
    </fieldset>
  );
}

export function AllowSummary({ allow }: { allow: Allowlists }) {
  const all = (l: string[]) => l.includes('*');
  if (all(allow.envs) && all(allow.indexes)) return <span className="muted">all data</span>;
  return (
    <span className="small">
      {all(allow.envs) ? 'all envs' : allow.envs.join(', ')} /{' '}
      {all(allow.indexes) ? 'all indexes' : allow.indexes.join(', ')}
    </span>
  );
}

/** The one time a secret is shown: copy it now, it cannot be read again. */
export function SecretDialog({
  title,
  secret,
  onClose,
  children,
}: {
  title: string;
  secret: string;
  onClose: () => void;
  children?: ReactNode;
}) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      footer={
        <Button variant="primary" onClick={onClose}>
          I have copied it
        </Button>
      }
    >
      <div className="alert alert-warn">
        <Icon name="alert" />
        <span>Copy this secret now. It is shown only once: svc stores only a hash of it and cannot show it again.</span>
      </div>
      <div className="secret-box">
        <code data-testid="secret">{secret}</code>
        <CopyButton text={secret} label="Copy" size="md" />
      </div>
      {children}
    </Modal>
  );
}

export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <div className="alert alert-error" role="alert">
      <Icon name="alert" />
      <span>{error}</span>
    </div>
  ) : null;
}
