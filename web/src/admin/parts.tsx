import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { Allowlists } from '../api/types';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { Icon } from '../ui/icons';
import { Modal } from '../ui/Modal';
import { TextField } from '../ui/Field';

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
        <TextField
          label="Environments"
          value={text.envs}
          onChange={(v) => set('envs', v)}
          aria-label="Allowed environments"
        />
        <TextField
          label="Indexes"
          value={text.indexes}
          onChange={(v) => set('indexes', v)}
          aria-label="Allowed indexes"
        />
      </div>
      {tools && (
        <TextField
          label="MCP tools"
          value={text.tools}
          onChange={(v) => set('tools', v)}
          aria-label="Allowed MCP tools"
        />
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

/** A column head: its text, or its text and class (`num` right-aligns). */
export type Column = string | { label: string; className: string };

const labelOf = (c: Column) => (typeof c === 'string' ? c : c.label);

/**
 * Gives every cell of `body` its column's head as `data-label`: on a phone (styles/phone.css) each
 * row is a card, its first cell (the name) on top and the others as "label: value" lines. The rows
 * are the pages' own markup, so the labels are set here once rather than by every page.
 */
function labelCells(body: HTMLTableSectionElement, labels: string[]): void {
  for (const row of body.rows)
    for (const cell of row.cells) {
      const label = cell.colSpan > 1 ? undefined : labels[cell.cellIndex];
      if (label !== undefined && cell.dataset.label !== label) cell.dataset.label = label;
    }
}

/**
 * The list of an admin page: a card holding a table with these column heads and an Actions
 * column, the rows given as children, and `empty` across every column when there is nothing yet.
 */
export function AdminTable({
  testId,
  className,
  columns,
  empty,
  children,
}: {
  testId: string;
  className?: string;
  columns: Column[];
  /** Shown as the only row when given: pass it once the list has loaded and is empty. */
  empty?: ReactNode;
  children: ReactNode;
}) {
  const body = useRef<HTMLTableSectionElement>(null);
  const labels = [...columns.map(labelOf), 'Actions'];
  const key = labels.join('\u0000');
  // after every render (the rows are children, new on each): a cheap walk that writes only what changed
  useLayoutEffect(() => {
    if (body.current) labelCells(body.current, key.split('\u0000'));
  });
  return (
    <div className="card admin-card">
      <table className={className ? `admin-table ${className}` : 'admin-table'} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((c) =>
              typeof c === 'string' ? (
                <th key={c}>{c}</th>
              ) : (
                <th key={c.label} className={c.className}>
                  {c.label}
                </th>
              ),
            )}
            <th className="actions-col">Actions</th>
          </tr>
        </thead>
        <tbody ref={body}>
          {children}
          {empty && (
            <tr>
              <td colSpan={columns.length + 1} className="empty-row">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
