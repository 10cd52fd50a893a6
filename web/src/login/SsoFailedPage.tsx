import { Logo } from '../ui/icons';

/**
 * Where every failed single sign-on ends: one message whatever went wrong. The reason is recorded
 * for administrators (`saml_*` events in _svclogs), never shown here.
 */
export function SsoFailedPage() {
  return (
    <div className="login-page">
      <div className="login-card" role="alert" data-testid="sso-failed">
        <div className="login-brand">
          <Logo size={36} />
          <div>
            <h1>svc</h1>
            <p className="muted">Log search</p>
          </div>
        </div>
        <p className="sso-failed-message">Single sign-on failed. Contact your administrator.</p>
        <a className="btn btn-primary login-submit" href="/ui/login">
          Back to sign in
        </a>
      </div>
    </div>
  );
}
