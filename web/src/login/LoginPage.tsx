import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, get } from '../api/client';
import type { AuthOptions } from '../api/types';
import { Button } from '../ui/Button';
import { TextField } from '../ui/Field';
import { LoginCard } from './LoginCard';

/** Where to go after signing in: a same-origin path under /ui/ only, never an absolute URL. */
export function safeNext(raw: string | null): string {
  if (!raw || !raw.startsWith('/ui/') || raw.startsWith('//') || raw.startsWith('/ui/login')) return '/ui/search';
  return raw;
}

export function LoginPage() {
  const params = new URLSearchParams(location.search);
  const next = safeNext(params.get('next'));
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [options, setOptions] = useState<AuthOptions | null>(null);

  useEffect(() => {
    get<AuthOptions>('/api/auth/options').then(setOptions, () => setOptions(null));
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    api('POST', '/api/auth/login', { body: { username, password }, allow401: true }).then(
      () => location.assign(next),
      (err: unknown) => {
        // one message for every failure: it must not tell which of name and password was wrong
        const rateLimited = err instanceof ApiError && err.status === 429;
        setError(
          rateLimited
            ? 'Too many attempts. Wait a few minutes and try again.'
            : 'Sign-in failed. Check your user name and password.',
        );
        setBusy(false);
      },
    );
  };

  return (
    <LoginCard onSubmit={submit} label="Sign in">
      {error && (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      )}
      <TextField
        label="User name"
        name="username"
        autoComplete="username"
        autoFocus
        required
        value={username}
        onChange={setUsername}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={setPassword}
      />
      <Button type="submit" variant="primary" className="login-submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </Button>
      {options?.saml.enabled && (
        <>
          <div className="login-or">
            <span>or</span>
          </div>
          <a className="btn btn-secondary login-submit" href={`/api/auth/saml/login?next=${encodeURIComponent(next)}`}>
            Sign in with SSO
          </a>
        </>
      )}
    </LoginCard>
  );
}
