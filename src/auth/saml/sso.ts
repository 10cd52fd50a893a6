import { SAML, ValidateInResponseTo, type Profile } from '@node-saml/node-saml';
import type { Logger } from 'pino';
import type { Clock } from '../../clock/clock.js';
import { ConfigError, type Config } from '../../config/load.js';
import type { UserRecord } from '../../control/records.js';
import type { ControlStore } from '../../control/store.js';
import type { StoredSamlSettings } from '../../control/types.js';
import type { OutboundClient } from '../../outbound/client.js';
import type { AuthService, LoginResult } from '../service.js';
import { sameEmail } from '../users.js';
import { classify, SamlFailure, type SamlFailureDetail } from './failures.js';
import { assertionLifetime, readResponse, type ResponseIds } from './response.js';
import {
  effectiveSaml,
  ENV_NAME,
  resolveSaml,
  SamlSettingError,
  samlConfigured,
  type EffectiveSaml,
  type ResolvedSaml,
  type SamlField,
} from './settings.js';
import { REQUEST_TTL_MS, type SamlBinding } from './binding.js';
import { SamlStateStore } from './state-store.js';

export interface SsoDeps {
  config: Readonly<Config>;
  control: ControlStore;
  auth: AuthService;
  clock: Clock;
  log: Logger;
  /** Fetches IdP metadata given as a URL (the guarded client every outbound call uses). */
  outbound: OutboundClient;
  /** Binds each login to the browser that started it (keys from the JWT secret every node shares). */
  binding: SamlBinding;
  /** Records a `saml_*` event in `_svclogs`. */
  record: (event: string, detail: Record<string, string | undefined>) => void;
}

/** Metadata fetched from a URL is fetched again after this long (the IdP may roll its keys). */
const METADATA_TTL_MS = 3_600_000;

/** What Admin → General shows of single sign-on. */
export interface SsoStatus {
  configured: boolean;
  usable: boolean;
  problem?: string;
  acsUrl?: string;
  spEntityId?: string;
  /** Fields an SVC_SAML_* variable sets (they win over saved ones), what it says (nothing secret), and its name. */
  fromEnv: SamlField[];
  envValues: Record<string, string>;
  envVars: Record<string, string>;
}

export interface SsoLogin {
  session: LoginResult;
  /** Where the browser goes next: the page it came from (same origin only). */
  next: string;
  /** The AuthnRequest this login answered (none for an IdP-initiated one). */
  requestId?: string;
}

/** What the ACS gives back: a sealed ticket for /complete (an answer to svc's request), or a session (IdP-initiated, when allowed). */
export type AcsResult = { ticket: string } | { login: SsoLogin };

/** A login started: the IdP's URL, and the request id the browser must keep (the relay cookie). */
export interface SsoStart {
  url: string;
  requestId: string;
}

/**
 * SAML single sign-on, service-provider side, match-only (docs/decisions/0016-saml-match-only.md): svc sends
 * people to the IdP and accepts the signed answer only for a user that already exists (by name or email, or a
 * configured attribute). Every failure is a SamlFailure naming its `saml_*` event; the route shows the person
 * one generic page. A login is bound to the browser that started it (SamlBinding); used assertions live in
 * the control plane, which every node shares. Safe to call concurrently.
 */
export class SamlSso {
  private resolved: Promise<ResolvedSaml> | undefined;
  private effective: EffectiveSaml;
  readonly state: SamlStateStore;

  private constructor(private readonly deps: SsoDeps) {
    this.state = new SamlStateStore(deps.control, deps.clock, deps.binding);
    this.effective = effectiveSaml(deps.config.saml, deps.control.settings().saml);
    deps.control.onChange(() => this.settingsChanged());
  }

  /**
   * Opens single sign-on. A wrong SVC_SAML_* setting (an unreadable certificate or metadata file, a
   * missing entity id) stops start-up with a ConfigError naming it; a problem with settings saved in
   * Admin → General, or an IdP that cannot be reached now, is recorded as saml_config_invalid and
   * tried again at the next login.
   */
  static async open(deps: SsoDeps): Promise<SamlSso> {
    const sso = new SamlSso(deps);
    if (!sso.configured()) return sso;
    try {
      await sso.current();
    } catch (e) {
      // a variable that cannot work stops svc; saved settings, or an IdP that is down, do not
      const fromVariable =
        e instanceof SamlSettingError &&
        (e.setting === 'SVC_PUBLIC_URL' || Object.values(ENV_NAME).includes(e.setting));
      if (fromVariable && !e.transient) throw new ConfigError(e.message);
      deps.record('saml_config_invalid', { reason: (e as Error).message });
      deps.log.warn({ err: (e as Error).message }, 'single sign-on is not usable until its settings are fixed');
    }
    return sso;
  }

  /** What binds a login to its browser (the routes keep the relay cookie with it). */
  get binding(): SamlBinding {
    return this.deps.binding;
  }

  configured(): boolean {
    return samlConfigured(this.effective);
  }

  /** The resolved settings; re-resolved after a change, a failure, or when fetched metadata is old. */
  private current(): Promise<ResolvedSaml> {
    const p = (this.resolved ??= resolveSaml(this.effective, this.deps.config.publicUrl, this.deps.outbound));
    return p.then(
      (r) => {
        if (r.metadataUrl && Date.now() - r.resolvedAt > METADATA_TTL_MS) this.resolved = undefined;
        return r;
      },
      (e: unknown) => {
        this.resolved = undefined; // try again next time: the IdP may be back
        throw e;
      },
    );
  }

  private settingsChanged(): void {
    const next = effectiveSaml(this.deps.config.saml, this.deps.control.settings().saml);
    if (JSON.stringify(next) === JSON.stringify(this.effective)) return;
    this.effective = next;
    this.resolved = undefined;
  }

  /** For Admin → General: whether single sign-on works now, what is wrong if not, and which fields the environment sets. */
  async status(): Promise<SsoStatus> {
    // what the variables say (paths, URLs, names: nothing secret), shown read-only beside the saved fields
    const envValues = Object.fromEntries(
      Object.entries(this.effective)
        .filter(([, v]) => v?.from === 'env')
        .map(([k, v]) => [k, String(v.value)]),
    );
    const fromEnv = Object.keys(envValues) as SamlField[];
    const envVars = Object.fromEntries(fromEnv.map((f) => [f, ENV_NAME[f]]));
    const env = { fromEnv, envValues, envVars };
    if (!this.configured()) return { configured: false, usable: false, ...env };
    try {
      const r = await this.current();
      return { configured: true, usable: true, acsUrl: r.acsUrl, spEntityId: r.spEntityId, ...env };
    } catch (e) {
      return { configured: true, usable: false, problem: (e as Error).message, ...env };
    }
  }

  /** Checks settings an admin is about to save; throws SamlSettingError naming the field. */
  async check(stored: StoredSamlSettings): Promise<void> {
    const eff = effectiveSaml(this.deps.config.saml, stored);
    if (samlConfigured(eff)) await resolveSaml(eff, this.deps.config.publicUrl, this.deps.outbound);
  }

  /** node-saml for one call; `requestId` is the id an AuthnRequest built by it gets. */
  private async client(requestId?: string): Promise<{ saml: SAML; r: ResolvedSaml }> {
    let r: ResolvedSaml;
    try {
      r = await this.current();
    } catch (e) {
      throw new SamlFailure('saml_config_invalid', (e as Error).message);
    }
    const saml = new SAML({
      entryPoint: r.entryPoint,
      issuer: r.spEntityId,
      callbackUrl: r.acsUrl,
      idpCert: r.idpCerts,
      idpIssuer: r.idpEntityId,
      audience: r.spEntityId,
      // IdPs sign the assertion, the response, or both; the assertion must be signed
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: r.clockSkewMs,
      validateInResponseTo: r.idpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: REQUEST_TTL_MS,
      cacheProvider: this.state,
      generateUniqueId: () => requestId ?? this.deps.binding.newRequestId(this.deps.clock.now()),
      // let the IdP name the user in the format it is configured for
      identifierFormat: null,
    });
    return { saml, r };
  }

  /** The IdP's sign-in URL for a browser that should come back to `next`, and the id the browser must keep. */
  async start(next: string): Promise<SsoStart> {
    const requestId = this.deps.binding.newRequestId(this.deps.clock.now());
    const { saml } = await this.client(requestId);
    return { url: await saml.getAuthorizeUrlAsync(safeNext(next), undefined, {}), requestId };
  }

  /** svc's own SP metadata, to give the IdP. */
  async spMetadata(): Promise<string> {
    const { saml } = await this.client();
    return saml.generateServiceProviderMetadata(null, null);
  }

  /**
   * Validates a posted answer and matches its user. An answer to svc's request gives a ticket that
   * only the browser which started the request can redeem at /complete (the post itself comes from
   * the IdP's site and carries none of svc's SameSite cookies); an unsolicited one, allowed only with
   * SVC_SAML_IDP_INITIATED, gives the session at once.
   */
  async acs(samlResponse: string | undefined, relayState: string | undefined): Promise<AcsResult> {
    if (!samlResponse)
      throw new SamlFailure('saml_response_invalid', 'the post has no SAMLResponse', { cause: 'malformed' });
    let ids: ResponseIds;
    try {
      ids = readResponse(samlResponse);
    } catch (e) {
      throw new SamlFailure('saml_response_invalid', `not a SAML response: ${(e as Error).message}`, {
        cause: 'malformed',
      });
    }
    const detail: SamlFailureDetail = { idp: ids.issuer, name_id: ids.nameId, request_id: ids.inResponseTo };
    if (ids.assertionId && (await this.state.assertionSeen(ids.assertionId))) {
      throw new SamlFailure(
        'saml_assertion_replayed',
        `assertion ${ids.assertionId} was already used to log in`,
        detail,
      );
    }
    const { saml, r } = await this.client();
    let profile: Profile;
    try {
      const out = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse });
      if (!out.profile) throw new Error('the response holds no assertion');
      profile = out.profile;
    } catch (e) {
      const { event, cause } = classify((e as Error).message);
      throw new SamlFailure(event, (e as Error).message, { ...detail, cause });
    }
    detail.name_id = profile.nameID;
    const user = this.matchUser(profile, r.match, detail);
    const assertionXml = profile.getAssertionXml?.();
    if (!assertionXml)
      throw new SamlFailure('saml_response_invalid', 'the validated response gave no assertion', {
        ...detail,
        cause: 'malformed',
      });
    const used = assertionLifetime(assertionXml, this.deps.clock.now() + REQUEST_TTL_MS);
    const until = new Date(Date.parse(used.expiresAt) + r.clockSkewMs).toISOString();
    if (!(await this.state.useAssertion(used.id, until)))
      throw new SamlFailure('saml_assertion_replayed', `assertion ${used.id} was already used to log in`, detail);
    const next = safeNext(relayState);
    // node-saml checked InResponseTo against svc's ids: absent only for an allowed IdP-initiated login
    if (ids.inResponseTo)
      return {
        ticket: this.deps.binding.seal(
          { userId: user.id, requestId: ids.inResponseTo, next, idp: detail.idp, nameId: detail.name_id },
          this.deps.clock.now(),
        ),
      };
    return { login: await this.signIn(user, detail, next) };
  }

  /**
   * Redeems the ACS's ticket in the browser that started the login: `pending` are the request ids its
   * relay cookie holds. Refused when the ticket answers a request this browser did not make (an
   * attacker's own valid response posted into someone else's browser: login CSRF).
   */
  async complete(sealed: string | undefined, pending: string[]): Promise<SsoLogin> {
    const t = sealed === undefined ? undefined : this.deps.binding.open(sealed, this.deps.clock.now());
    if (!t)
      throw new SamlFailure('saml_response_invalid', 'the hand-over from the ACS is missing, changed or expired', {
        cause: 'bad_ticket',
      });
    const detail: SamlFailureDetail = { idp: t.idp, name_id: t.nameId, request_id: t.requestId };
    if (!pending.includes(t.requestId)) {
      throw new SamlFailure(
        'saml_response_invalid',
        'the answer reached a browser that did not start this login (no matching relay cookie)',
        { ...detail, cause: 'other_browser' },
      );
    }
    // the user may have been disabled or deleted in the moment between the ACS and here
    const user = this.deps.control.doc.users.find((u) => u.id === t.userId);
    if (!user) throw new SamlFailure('saml_user_unknown', `user ${t.userId} no longer exists`, detail);
    if (user.disabled) throw new SamlFailure('saml_user_disabled', `user "${user.username}" is disabled`, detail);
    return this.signIn(user, detail, t.next);
  }

  private async signIn(user: UserRecord, detail: SamlFailureDetail, next: string): Promise<SsoLogin> {
    const session = await this.deps.auth.issueSession(user);
    this.deps.record('saml_login', {
      user: user.username,
      idp: detail.idp,
      name_id: detail.name_id,
      request_id: detail.request_id,
    });
    return { session, next, requestId: detail.request_id };
  }

  /** Match-only: an existing user whose name or email (any case) is the NameID or the configured attribute. */
  private matchUser(profile: Profile, match: string, detail: SamlFailureDetail): UserRecord {
    const attributes = profile.attributes as Record<string, unknown> | undefined;
    const raw = match === 'nameid' ? profile.nameID : (attributes?.[match] ?? profile[match]);
    const key: unknown = Array.isArray(raw) ? raw[0] : raw;
    if (typeof key !== 'string' || key === '')
      throw new SamlFailure(
        'saml_user_unknown',
        `the assertion carries no ${match === 'nameid' ? 'NameID' : `attribute "${match}"`}`,
        detail,
      );
    const user =
      this.deps.auth.users.byUsername(key) ?? this.deps.control.doc.users.find((u) => sameEmail(u.email, key));
    if (!user) throw new SamlFailure('saml_user_unknown', `no user named or with the email "${key}"`, detail);
    if (user.disabled) throw new SamlFailure('saml_user_disabled', `user "${user.username}" is disabled`, detail);
    return user;
  }
}

/** Back to a page of the UI only: a path under /ui/, never another origin. */
export function safeNext(raw: string | undefined): string {
  if (!raw || !raw.startsWith('/ui/') || raw.startsWith('//') || /[\\\r\n]/.test(raw)) return '/ui/search';
  return raw;
}
