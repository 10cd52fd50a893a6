import type { FormEventHandler, ReactNode } from 'react';
import { Logo } from '../ui/icons';

/** The card of the signed-out pages (sign in, single sign-on failed): the product's name on top. */
export function LoginCard({
  children,
  onSubmit,
  label,
  testId,
}: {
  children: ReactNode;
  onSubmit?: FormEventHandler;
  label: string;
  testId?: string;
}) {
  const body = (
    <>
      <div className="login-brand">
        <Logo size={36} />
        <div>
          <h1>svc</h1>
          <p className="muted">Log search</p>
        </div>
      </div>
      {children}
    </>
  );
  return (
    <main className="login-page">
      {onSubmit ? (
        <form className="login-card" onSubmit={onSubmit} aria-label={label} data-testid={testId}>
          {body}
        </form>
      ) : (
        <div className="login-card" role="alert" aria-label={label} data-testid={testId}>
          {body}
        </div>
      )}
    </main>
  );
}
