import { useState, type FormEvent } from 'react';
import { api, del, get, patch, post } from '../api/client';
import type { Allowlists, User } from '../api/types';
import { useSession } from '../app/session';
import { Button } from '../ui/Button';
import { shortDate } from '../ui/format';
import { ConfirmDialog, Modal } from '../ui/Modal';
import { useToast } from '../ui/toast';
import { AllowlistFields, AllowSummary, ErrorLine, PageHeader, StateBadge } from './parts';
import { useLoad } from './useLoad';

export function UsersPage() {
  const { data, error, reload } = useLoad(() => get<{ users: User[] }>('/api/admin/users'));
  const [editing, setEditing] = useState<User | 'new' | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const { me } = useSession();
  const toast = useToast();
  const setDisabled = async (u: User, disabled: boolean) => {
    try {
      await post(`/api/admin/users/${u.id}/${disabled ? 'disable' : 'enable'}`);
      toast('ok', `${u.username} ${disabled ? 'disabled: their sessions ended' : 'enabled'}`);
      reload();
    } catch (e) {
      toast('error', (e as Error).message);
    }
  };
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
      <div className="card">
        <table className="admin-table" data-testid="users">
          <thead>
            <tr>
              <th>User</th>
              <th>Role</th>
              <th>State</th>
              <th>Access</th>
              <th>Created</th>
              <th className="actions-col">Actions</th>
            </tr>
          </thead>
          <tbody>
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
                    <Button size="sm" onClick={() => setDisabled(u, u.state !== 'disabled')}>
                      {u.state === 'disabled' ? 'Enable' : 'Disable'}
                    </Button>
                  )}
                  {u.username !== 'admin' && (
                    <Button
                      size="sm"
                      variant="ghost"
                      icon="trash"
                      aria-label={`Delete ${u.username}`}
                      title="Delete"
                      onClick={() => setDeleting(u)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
        <ConfirmDialog
          title="Delete user"
          danger
          confirmLabel="Delete user"
          message={
            <>
              Delete <strong>{deleting.username}</strong>? Their sessions end at once.
            </>
          }
          onConfirm={async () => {
            try {
              await del(`/api/admin/users/${deleting.id}`);
              reload();
            } catch (e) {
              toast('error', (e as Error).message);
            }
          }}
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
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const mail = email.trim();
      if (user) await patch(`/api/admin/users/${user.id}`, { role, allow, email: mail || null });
      else
        await api('POST', '/api/admin/users', {
          body: { username, password, role, allow, ...(mail ? { email: mail } : {}) },
        });
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Modal
      title={user ? `Edit ${user.username}` : 'Create user'}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" type="submit" form="user-form">
            {user ? 'Save' : 'Create user'}
          </Button>
        </>
      }
    >
      <form id="user-form" className="form" onSubmit={submit}>
        <ErrorLine error={error} />
        {!user && (
          <>
            <label className="field">
              <span>User name</span>
              <input
                value={username}
                onChange={(e) => setUsername(e.target.value)}
                required
                autoFocus
                aria-label="User name"
                autoComplete="off"
              />
            </label>
            <label className="field">
              <span>Password (at least 12 characters)</span>
              <input
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                required
                minLength={12}
                aria-label="Password"
                autoComplete="new-password"
              />
            </label>
          </>
        )}
        <label className="field">
          <span>Email (optional: single sign-on finds the user by it)</span>
          <input
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-label="Email"
            autoComplete="off"
          />
        </label>
        <label className="field">
          <span>Role</span>
          <select
            value={role}
            onChange={(e) => setRole(e.target.value as 'admin' | 'user')}
            aria-label="Role"
            disabled={user?.username === 'admin'}
          >
            <option value="user">User: searches what the allowlists name</option>
            <option value="admin">Admin: everything, including these pages</option>
          </select>
        </label>
        <AllowlistFields value={allow} onChange={setAllow} tools={false} />
        {user && <p className="muted small">A new role ends the user's sessions.</p>}
      </form>
    </Modal>
  );
}

function ResetDialog({ user, onClose, onDone }: { user: User; onClose: () => void; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await patch(`/api/admin/users/${user.id}`, { password });
      onDone();
      onClose();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Modal
      title={`Reset password of ${user.username}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" type="submit" form="reset-form" disabled={password.length < 12}>
            Set password
          </Button>
        </>
      }
    >
      <form id="reset-form" className="form" onSubmit={submit}>
        <ErrorLine error={error} />
        <label className="field">
          <span>New password (at least 12 characters)</span>
          <input
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoFocus
            minLength={12}
            aria-label="New password"
            autoComplete="new-password"
          />
        </label>
        <p className="muted small">Every session of {user.username} ends; they sign in again with the new password.</p>
      </form>
    </Modal>
  );
}
