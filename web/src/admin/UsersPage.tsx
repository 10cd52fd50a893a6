import { useState } from 'react';
import { api, del, get, patch, post } from '../api/client';
import type { Allowlists, User } from '../api/types';
import { useSession } from '../app/session';
import { Button, DeleteButton } from '../ui/Button';
import { Field, TextField } from '../ui/Field';
import { shortDate } from '../ui/format';
import { ConfirmDelete, FormDialog } from '../ui/Modal';
import { useNotifyAction, useToast } from '../ui/toast';
import { useAsyncAction } from '../ui/useAsyncAction';
import { AdminTable, AllowlistFields, AllowSummary, PageHeader, StateBadge } from './parts';
import { ErrorLine } from '../ui/ErrorLine';
import { useLoad } from './useLoad';

export function UsersPage() {
  const { data, error, reload } = useLoad(() => get<{ users: User[] }>('/api/admin/users'));
  const [editing, setEditing] = useState<User | 'new' | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const { me } = useSession();
  const toast = useToast();
  const notify = useNotifyAction(reload);
  const setDisabled = (u: User, disabled: boolean) =>
    void notify(
      () => post(`/api/admin/users/${u.id}/${disabled ? 'disable' : 'enable'}`),
      `${u.username} ${disabled ? 'disabled: their sessions ended' : 'enabled'}`,
    );
  return (
    <div className="admin-page">
      <PageHeader
        title="Users"
        description="People who sign in to svc, with a password or through single sign-on (which finds them by user name or email). Admins manage keys, tokens, environments and users; a user searches what their allowlists name."
        action={
          <Button variant="primary" icon="plus" onClick={() => setEditing('new')}>
            Create user
          </Button>
        }
      />
      <ErrorLine error={error} />
      <AdminTable testId="users" columns={['User', 'Role', 'State', 'Access', 'Created']}>
        {(data?.users ?? []).map((u) => (
          <tr key={u.id}>
            <td className="name-cell">
              <div className="strong">
                {u.username}
                {u.username === me.name && <span className="muted small"> (you)</span>}
              </div>
              {u.email && <div className="muted small">{u.email}</div>}
            </td>
            <td>
              <span className={u.role === 'admin' ? 'badge badge-scope-admin' : 'badge'}>{u.role}</span>
            </td>
            <td>
              <StateBadge state={u.state} />
            </td>
            <td>
              <AllowSummary allow={u.allow} />
            </td>
            <td title={`created ${u.createdAt}, changed ${u.updatedAt}`}>{shortDate(u.createdAt)}</td>
            <td className="actions-col">
              <Button size="sm" onClick={() => setEditing(u)}>
                Edit
              </Button>
              <Button size="sm" onClick={() => setResetting(u)} title="Set a new password">
                Password
              </Button>
              {u.username !== 'admin' && (
                <>
                  <Button size="sm" onClick={() => setDisabled(u, u.state !== 'disabled')}>
                    {u.state === 'disabled' ? 'Enable' : 'Disable'}
                  </Button>
                  <DeleteButton name={u.username} onClick={() => setDeleting(u)} />
                </>
              )}
            </td>
          </tr>
        ))}
      </AdminTable>
      {editing && (
        <UserDialog
          user={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
      {resetting && (
        <ResetDialog
          user={resetting}
          onClose={() => setResetting(null)}
          onDone={() => toast('ok', `Password of ${resetting.username} changed; their sessions ended`)}
        />
      )}
      {deleting && (
        <ConfirmDelete
          what="user"
          name={deleting.username}
          consequence="Their sessions end at once."
          onConfirm={() => notify(() => del(`/api/admin/users/${deleting.id}`))}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}

function UserDialog({ user, onClose, onSaved }: { user: User | null; onClose: () => void; onSaved: () => void }) {
  const [username, setUsername] = useState(user?.username ?? '');
  const [email, setEmail] = useState(user?.email ?? '');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<'admin' | 'user'>(user?.role ?? 'user');
  const [allow, setAllow] = useState<Allowlists>(user?.allow ?? { envs: ['*'], indexes: ['*'], tools: ['*'] });
  const action = useAsyncAction();
  const submit = async () => {
    const mail = email.trim();
    if (user) await patch(`/api/admin/users/${user.id}`, { role, allow, email: mail || null });
    else
      await api('POST', '/api/admin/users', {
        body: { username, password, role, allow, ...(mail ? { email: mail } : {}) },
      });
    onSaved();
  };
  return (
    <FormDialog
      id="user-form"
      title={user ? `Edit ${user.username}` : 'Create user'}
      onClose={onClose}
      onSubmit={submit}
      action={action}
      submitLabel={user ? 'Save' : 'Create user'}
    >
      {!user && (
        <>
          <TextField
            label="User name"
            value={username}
            onChange={setUsername}
            required
            autoFocus
            aria-label="User name"
            autoComplete="off"
          />
          <PasswordField label="Password (at least 12 characters)" value={password} onChange={setPassword} required />
        </>
      )}
      <TextField
        label="Email (optional: single sign-on finds the user by it)"
        type="email"
        value={email}
        onChange={setEmail}
        aria-label="Email"
        autoComplete="off"
      />
      <Field label="Role">
        <select
          value={role}
          onChange={(e) => setRole(e.target.value === 'admin' ? 'admin' : 'user')}
          aria-label="Role"
          disabled={user?.username === 'admin'}
        >
          <option value="user">User: searches what the allowlists name</option>
          <option value="admin">Admin: everything, including these pages</option>
        </select>
      </Field>
      <AllowlistFields value={allow} onChange={setAllow} tools={false} />
      {user && <p className="muted small">A new role ends the user's sessions.</p>}
    </FormDialog>
  );
}

/** A new password: at least 12 characters, never filled in by the browser from a saved one. */
function PasswordField({
  label,
  value,
  onChange,
  ...rest
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  required?: boolean;
  autoFocus?: boolean;
  'aria-label'?: string;
}) {
  return (
    <TextField
      label={label}
      type="password"
      value={value}
      onChange={onChange}
      minLength={12}
      aria-label="Password"
      autoComplete="new-password"
      {...rest}
    />
  );
}

function ResetDialog({ user, onClose, onDone }: { user: User; onClose: () => void; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const action = useAsyncAction();
  const submit = async () => {
    await patch(`/api/admin/users/${user.id}`, { password });
    onDone();
    onClose();
  };
  return (
    <FormDialog
      id="reset-form"
      title={`Reset password of ${user.username}`}
      onClose={onClose}
      onSubmit={submit}
      action={action}
      submitLabel="Set password"
      canSubmit={password.length >= 12}
    >
      <PasswordField
        label="New password (at least 12 characters)"
        value={password}
        onChange={setPassword}
        autoFocus
        aria-label="New password"
      />
      <p className="muted small">Every session of {user.username} ends; they sign in again with the new password.</p>
    </FormDialog>
  );
}
