import { useState, type ReactNode } from 'react';
import { patch } from '../api/client';
import type { SamlSettings, SamlStatus } from '../api/types';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { Icon } from '../ui/icons';
import { useToast } from '../ui/toast';
import { useAsyncAction } from '../ui/useAsyncAction';
import { ErrorLine } from '../ui/ErrorLine';

type Text = Record<keyof SamlSettings, string>;

function toText(s: SamlSettings | undefined): Text {
  return {
    idpMetadata: s?.idpMetadata ?? '',
    idpSsoUrl: s?.idpSsoUrl ?? '',
    idpCert: s?.idpCert ?? '',
    spEntityId: s?.spEntityId ?? '',
    match: s?.match ?? '',
    clockSkewSecs: s?.clockSkewSecs === undefined ? '' : String(s.clockSkewSecs),
    idpInitiated: s?.idpInitiated ? 'on' : '',
  };
}

/** Every field of the form as the API takes it: empty text removes a field (null). */
function toPatch(t: Text): Record<keyof SamlSettings, string | number | boolean | null> {
  const str = (v: string) => (v.trim() === '' ? null : v.trim());
  return {
    idpMetadata: str(t.idpMetadata),
    idpSsoUrl: str(t.idpSsoUrl),
    idpCert: str(t.idpCert),
    spEntityId: str(t.spEntityId),
    match: str(t.match),
    clockSkewSecs: t.clockSkewSecs.trim() === '' ? null : Number(t.clockSkewSecs),
    idpInitiated: t.idpInitiated === 'on' ? true : null,
  };
}

/**
 * Admin → General → Single sign-on: the SAML settings saved in the control plane. A field the
 * environment sets (SVC_SAML_*) wins and is shown read-only. Saving checks the settings for real
 * (the certificate is read, the metadata fetched); svc refuses what would not work.
 */
export function SsoSettings({
  saved,
  status,
  onSaved,
}: {
  saved: SamlSettings | undefined;
  status: SamlStatus;
  onSaved: () => void;
}) {
  // a field the environment sets shows the variable's value, read-only
  const [text, setText] = useState<Text>({ ...toText(saved), ...status.envValues });
  const action = useAsyncAction();
  const toast = useToast();
  const env = new Set(status.fromEnv);
  const set = (k: keyof SamlSettings, v: string) => setText((t) => ({ ...t, [k]: v }));
  const save = action.submit(async () => {
    const all = toPatch(text);
    // what the environment sets is not ours to change
    const body = Object.fromEntries(Object.entries(all).filter(([k]) => !env.has(k as keyof SamlSettings)));
    await patch('/api/admin/settings', { saml: body });
    toast('ok', 'Single sign-on settings saved');
    onSaved();
  });
  const field = (k: keyof SamlSettings, label: string, input: (disabled: boolean) => ReactNode) => (
    <label className="field">
      <span>
        {label}
        {env.has(k) && <span className="env-note"> · set by {status.envVars[k]}</span>}
      </span>
      {input(env.has(k))}
    </label>
  );
  return (
    <form className="card card-pad form sso-form" onSubmit={save} data-testid="sso-settings">
      <h2>Single sign-on (SAML)</h2>
      <SsoStatus status={status} />
      <ErrorLine error={action.error} />
      <div className="grid-2">
        {field('spEntityId', 'svc entity id (the Audience at the IdP)', (d) => (
          <input
            value={text.spEntityId}
            onChange={(e) => set('spEntityId', e.target.value)}
            disabled={d}
            placeholder="https://logs.example.com/saml"
            aria-label="svc entity id"
          />
        ))}
        {field('match', 'Match users by (nameid or an attribute name)', (d) => (
          <input
            value={text.match}
            onChange={(e) => set('match', e.target.value)}
            disabled={d}
            placeholder="nameid"
            aria-label="Match users by"
          />
        ))}
      </div>
      {field('idpMetadata', 'IdP metadata: its URL, or the XML itself', (d) => (
        <textarea
          rows={3}
          value={text.idpMetadata}
          onChange={(e) => set('idpMetadata', e.target.value)}
          disabled={d}
          placeholder="https://idp.example.com/app/…/sso/saml/metadata"
          aria-label="IdP metadata"
          className="mono"
        />
      ))}
      <p className="muted small">Or, without metadata, the IdP's sign-in URL and signing certificate:</p>
      {field('idpSsoUrl', 'IdP single sign-on URL (HTTP-Redirect)', (d) => (
        <input
          value={text.idpSsoUrl}
          onChange={(e) => set('idpSsoUrl', e.target.value)}
          disabled={d}
          placeholder="https://idp.example.com/sso/saml"
          aria-label="IdP single sign-on URL"
        />
      ))}
      {field('idpCert', 'IdP signing certificate (PEM)', (d) => (
        <textarea
          rows={4}
          value={text.idpCert}
          onChange={(e) => set('idpCert', e.target.value)}
          disabled={d}
          placeholder="-----BEGIN CERTIFICATE-----"
          aria-label="IdP signing certificate"
          className="mono"
        />
      ))}
      <div className="grid-2">
        {field('clockSkewSecs', 'Allowed clock skew (seconds, default 60)', (d) => (
          <input
            type="number"
            min={0}
            max={3600}
            value={text.clockSkewSecs}
            onChange={(e) => set('clockSkewSecs', e.target.value)}
            disabled={d}
            aria-label="Allowed clock skew"
          />
        ))}
        <label className="check sso-idp-initiated">
          <input
            type="checkbox"
            checked={text.idpInitiated === 'on' || text.idpInitiated === 'true'}
            disabled={env.has('idpInitiated')}
            onChange={(e) => set('idpInitiated', e.target.checked ? 'on' : '')}
            aria-label="Accept IdP-initiated sign-in"
          />
          <span>
            Accept sign-in started at the IdP (IdP-initiated)
            {env.has('idpInitiated') && <span className="env-note"> · set by {status.envVars.idpInitiated}</span>}
          </span>
        </label>
      </div>
      <div>
        <Button type="submit" variant="primary" disabled={action.busy}>
          {action.busy ? 'Checking…' : 'Save'}
        </Button>
      </div>
    </form>
  );
}

function SsoStatus({ status }: { status: SamlStatus }) {
  if (!status.configured)
    return (
      <p className="muted">
        Off. Fill in the IdP below to offer "Sign in with SSO" on the login page; users must already exist here (matched
        by name or email).
      </p>
    );
  return (
    <div className={status.usable ? 'sso-status ok' : 'sso-status bad'} data-testid="sso-status">
      <Icon name={status.usable ? 'check' : 'alert'} />
      <div>
        {status.usable ? <strong>Working.</strong> : <strong>Not usable: {status.problem}</strong>}
        {status.acsUrl && (
          <div className="small sso-urls">
            <span>ACS URL (give it to the IdP):</span> <code>{status.acsUrl}</code>{' '}
            <CopyButton text={status.acsUrl} label="" title="Copy the ACS URL" />
            <br />
            <span>svc's metadata:</span> <a href="/api/auth/saml/metadata">/api/auth/saml/metadata</a>
          </div>
        )}
      </div>
    </div>
  );
}
