import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SamlEnvSettings } from '../../config/load.js';
import type { StoredSamlSettings } from '../../control/types.js';
import type { OutboundClient } from '../../outbound/client.js';
import { OutboundRefused } from '../../outbound/errors.js';
import { parseIdpMetadata } from './metadata.js';

/**
 * SAML settings: each SVC_SAML_* variable wins over the same field saved in Admin → General
 * (docs/decisions/0016-saml-match-only.md). `resolveSaml` turns the effective settings into what node-saml
 * needs, reading the certificate file and the IdP metadata (a file, XML text or an http(s) URL), and fails
 * naming the setting that is wrong.
 */

export type SamlField = keyof StoredSamlSettings;
export const SAML_FIELDS: readonly SamlField[] = [
  'idpMetadata',
  'idpSsoUrl',
  'idpCert',
  'spEntityId',
  'match',
  'clockSkewSecs',
  'idpInitiated',
];

/** The variable that sets each field (idpCert comes from a file there). */
export const ENV_NAME: Record<SamlField, string> = {
  idpMetadata: 'SVC_SAML_IDP_METADATA',
  idpSsoUrl: 'SVC_SAML_IDP_SSO_URL',
  idpCert: 'SVC_SAML_IDP_CERT_PATH',
  spEntityId: 'SVC_SAML_SP_ENTITY_ID',
  match: 'SVC_SAML_MATCH',
  clockSkewSecs: 'SVC_SAML_CLOCK_SKEW_SECS',
  idpInitiated: 'SVC_SAML_IDP_INITIATED',
};

export const DEFAULT_CLOCK_SKEW_SECS = 60;

/** A setting that cannot work; `setting` names it the way the operator set it (variable or field). */
export class SamlSettingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
    /** The setting may be right and the IdP only unreachable now (its metadata URL did not answer). */
    readonly transient = false,
  ) {
    super(`${setting}: ${message}`);
  }
}

/** One field's value and where it came from. */
interface Source<T> {
  value: T;
  /** `env`: read from a file or URL the variable names; `settings`: the stored text itself. */
  from: 'env' | 'settings';
}

export type EffectiveSaml = { [K in SamlField]?: Source<NonNullable<StoredSamlSettings[K]>> };

export function effectiveSaml(env: SamlEnvSettings, stored: StoredSamlSettings | undefined): EffectiveSaml {
  const out: EffectiveSaml = {};
  const fromEnv: Partial<Record<SamlField, unknown>> = { ...env, idpCert: env.idpCertPath };
  for (const f of SAML_FIELDS) {
    const e = fromEnv[f];
    const s = stored?.[f];
    if (e !== undefined) (out as Record<string, unknown>)[f] = { value: e, from: 'env' };
    else if (s !== undefined && s !== '') (out as Record<string, unknown>)[f] = { value: s, from: 'settings' };
  }
  return out;
}

/** Any SAML setting at all: without one, single sign-on is simply off. */
export function samlConfigured(eff: EffectiveSaml): boolean {
  return SAML_FIELDS.some(
    (f) => eff[f] !== undefined && f !== 'clockSkewSecs' && f !== 'match' && f !== 'idpInitiated',
  );
}

/** What node-saml needs. */
export interface ResolvedSaml {
  entryPoint: string;
  /** PEM. */
  idpCerts: string[];
  /** From metadata; then the assertion's Issuer must be this. */
  idpEntityId?: string;
  spEntityId: string;
  acsUrl: string;
  /** `nameid` or an attribute name. */
  match: string;
  clockSkewMs: number;
  idpInitiated: boolean;
  /** The metadata came from a URL: fetch it again now and then (key rollover). */
  metadataUrl?: string;
  resolvedAt: number;
}

const name = (f: SamlField, eff: EffectiveSaml) => (eff[f]?.from === 'env' ? ENV_NAME[f] : `saml.${f}`);

/** The longest wait for the IdP's metadata URL, and the most of it read (one IdP's metadata is a few KB). */
const METADATA_TIMEOUT_MS = 10_000;
const METADATA_MAX_BYTES = 4 * 1024 * 1024;

/** `outbound` fetches metadata given as a URL (docs/outbound.md). */
export async function resolveSaml(
  eff: EffectiveSaml,
  publicUrl: string | undefined,
  outbound: OutboundClient,
): Promise<ResolvedSaml> {
  if (!publicUrl)
    throw new SamlSettingError(
      'SVC_PUBLIC_URL',
      'is required for single sign-on: the IdP posts its answer to <SVC_PUBLIC_URL>/api/auth/saml/acs',
    );
  const spEntityId = eff.spEntityId?.value;
  if (!spEntityId)
    throw new SamlSettingError('SVC_SAML_SP_ENTITY_ID', 'is required: the entity id svc is registered with at the IdP');
  const meta = eff.idpMetadata ? await loadMetadata(eff.idpMetadata, name('idpMetadata', eff), outbound) : undefined;
  const entryPoint = eff.idpSsoUrl?.value ?? meta?.ssoUrl;
  if (!entryPoint)
    throw new SamlSettingError(
      'SVC_SAML_IDP_METADATA',
      'or SVC_SAML_IDP_SSO_URL with SVC_SAML_IDP_CERT_PATH is required: where to send people to sign in',
    );
  checkUrl(entryPoint, name(eff.idpSsoUrl ? 'idpSsoUrl' : 'idpMetadata', eff));
  const certs = eff.idpCert
    ? [await loadCert(eff.idpCert, name('idpCert', eff))]
    : (meta?.certs ?? []).map((c, i) => checkCert(c, `${name('idpMetadata', eff)} certificate ${i + 1}`));
  if (certs.length === 0)
    throw new SamlSettingError(
      'SVC_SAML_IDP_CERT_PATH',
      'is required with SVC_SAML_IDP_SSO_URL: the certificate the IdP signs with',
    );
  const match = eff.match?.value ?? 'nameid';
  if (!/^[\w.:/-]{1,200}$/.test(match))
    throw new SamlSettingError(name('match', eff), `want "nameid" or an attribute name, not ${JSON.stringify(match)}`);
  return {
    entryPoint,
    idpCerts: certs,
    idpEntityId: meta?.entityId,
    spEntityId,
    acsUrl: `${publicUrl}/api/auth/saml/acs`,
    match,
    clockSkewMs: (eff.clockSkewSecs?.value ?? DEFAULT_CLOCK_SKEW_SECS) * 1000,
    idpInitiated: eff.idpInitiated?.value ?? false,
    metadataUrl: isUrl(eff.idpMetadata?.value) ? eff.idpMetadata.value : undefined,
    resolvedAt: Date.now(),
  };
}

function isUrl(v: string | undefined): v is string {
  return v !== undefined && /^https?:\/\//i.test(v);
}

function checkUrl(v: string, setting: string): void {
  try {
    const u = new URL(v);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
  } catch {
    throw new SamlSettingError(setting, `not an http(s) URL: ${JSON.stringify(v)}`);
  }
}

/** Metadata from a URL (fetched), XML text (settings), or a file (a variable's path). */
async function loadMetadata(src: Source<string>, setting: string, outbound: OutboundClient) {
  let xml: string;
  if (isUrl(src.value)) {
    xml = await fetchMetadata(src, setting, outbound);
  } else if (src.from === 'env') {
    xml = await readFile(src.value, 'utf8').catch((e: unknown) => {
      throw new SamlSettingError(setting, `cannot read ${src.value}: ${(e as Error).message}`);
    });
  } else xml = src.value;
  try {
    return parseIdpMetadata(xml);
  } catch (e) {
    throw new SamlSettingError(setting, `not usable IdP metadata: ${(e as Error).message}`);
  }
}

/**
 * Metadata from its URL: without following redirects (give the final URL), and, when the URL was
 * saved in Admin → General, only from a public address or one SVC_OUTBOUND_ALLOW allows; a URL the
 * operator set in SVC_SAML_IDP_METADATA is trusted as given.
 */
async function fetchMetadata(src: Source<string>, setting: string, outbound: OutboundClient): Promise<string> {
  checkUrl(src.value, setting);
  const limits = {
    idleTimeoutMs: METADATA_TIMEOUT_MS,
    maxBytes: METADATA_MAX_BYTES,
    trusted: src.from === 'env' ? [new URL(src.value).origin] : [],
  };
  const failed = (e: unknown): never => {
    if (e instanceof OutboundRefused) throw new SamlSettingError(setting, `cannot fetch ${src.value}: ${e.message}`);
    throw new SamlSettingError(setting, `cannot fetch ${src.value}: ${(e as Error).message}`, true);
  };
  const res = await outbound
    .fetch(
      src.value,
      {
        headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' },
        signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
      },
      limits,
    )
    .catch(failed);
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw new SamlSettingError(
      setting,
      `fetching ${src.value} answered ${res.status}: redirects are not followed, give the URL it points to (${res.headers.get('location') ?? 'no Location'})`,
    );
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new SamlSettingError(setting, `fetching ${src.value} answered ${res.status}`, res.status >= 500);
  }
  return res.text().catch(failed);
}

async function loadCert(src: Source<string>, setting: string): Promise<string> {
  const text =
    src.from === 'env'
      ? await readFile(src.value, 'utf8').catch((e: unknown) => {
          throw new SamlSettingError(setting, `cannot read ${src.value}: ${(e as Error).message}`);
        })
      : src.value;
  return checkCert(text, setting);
}

/** A certificate as PEM, from PEM or bare base64 DER (as metadata carries it); throws when it is none. */
export function checkCert(text: string, setting: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw new SamlSettingError(setting, 'not an X.509 certificate (want PEM, "-----BEGIN CERTIFICATE-----…")');
  }
  return pem;
}
