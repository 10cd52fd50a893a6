import { LoginCard } from './LoginCard';

/**
 * Where every failed single sign-on ends: one message whatever went wrong. The reason is recorded
 * for administrators (`saml_*` events in _svclogs), never shown here.
 */
export function SsoFailedPage() {
  return (
    <LoginCard label="Single sign-on failed" testId="sso-failed">
      <p className="sso-failed-message">Single sign-on failed. Contact your administrator.</p>
      <a className="btn btn-primary login-submit" href="/ui/login">
        Back to sign in
      </a>
    </LoginCard>
  );
}
