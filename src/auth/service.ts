import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { ApiKeyRecord, IngestTokenRecord, UserRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { Envs } from '../control/envs.js';
import { SvcError } from '../errors/svc-error.js';
import { ApiKeys, keyState, ownerRefusal } from './api-keys.js';
import { IngestTokens } from './ingest-tokens.js';
import { needsRehash, unusableHash, verifyPassword, type HashPolicy } from './passwords.js';
import {
  ALLOW_ALL,
  type ApiKeyPrincipal,
  type IngestPrincipal,
  type Principal,
  type Scope,
  type UserPrincipal,
} from './principal.js';
import { LoginRateLimiter } from './rate-limit.js';
import { API_KEY_PREFIX, INGEST_TOKEN_PREFIX, SecretHasher } from './secrets.js';
import { SessionActivity } from './session-activity.js';
import { SessionSigner } from './sessions.js';
import { UsageTracker } from './usage.js';
import { Users, view as userView, type UserView } from './users.js';

export interface AuthServiceOptions {
  control: ControlStore;
  clock: Clock;
  log: Logger;
  /** The control key; API key and ingest token HMACs are keyed from it. */
  controlKey: Buffer;
  jwtSecret: Uint8Array;
  sessionTtlHours: number;
  /** SVC_SESSION_IDLE_SECS; 0: no idle timeout. */
  sessionIdleSecs: number;
  /** How password hashes are made (FIPS mode: PBKDF2; `weak`: SVC_TEST_WEAK_PASSWORD_HASHES). */
  hashPolicy: HashPolicy;
  /** How often last-used times are written (ms). */
  usageFlushMs?: number;
}

export interface LoginResult {
  token: string;
  expiresAt: string;
  user: UserView;
}

/**
 * Who is calling: turns a presented secret (API key, ingest token, session JWT) into a Principal or
 * an SvcError (401 kinds), and holds the management services of the control plane's access parts.
 * Authentication is synchronous for keys and tokens (an in-memory HMAC index rebuilt on every
 * control-plane change) and async only for JWT verification. Safe to call concurrently.
 */
export class AuthService {
  readonly apiKeys: ApiKeys;
  readonly ingestTokens: IngestTokens;
  readonly users: Users;
  readonly envs: Envs;
  readonly usage: UsageTracker;
  private readonly hasher: SecretHasher;
  private readonly sessions: SessionSigner;
  private readonly activity: SessionActivity;
  private readonly perUser: LoginRateLimiter;
  private readonly perAddress: LoginRateLimiter;
  private readonly perUserAtAddress: LoginRateLimiter;
  private keysByHmac = new Map<string, ApiKeyRecord>();
  private tokensByHmac = new Map<string, IngestTokenRecord>();
  private usersById = new Map<string, UserRecord>();
  private revoked = new Set<string>();
  private mcpKeys = false;

  constructor(private readonly opts: AuthServiceOptions) {
    const { control, clock, log } = opts;
    this.hasher = new SecretHasher(opts.controlKey);
    this.sessions = new SessionSigner(opts.jwtSecret, clock, opts.sessionTtlHours);
    this.activity = new SessionActivity(control, clock, log, opts.sessionIdleSecs * 1000);
    this.usage = new UsageTracker(control, log);
    this.apiKeys = new ApiKeys(control, this.hasher, clock, this.usage);
    this.ingestTokens = new IngestTokens(control, this.hasher, clock, this.usage);
    this.users = new Users(control, clock, opts.hashPolicy);
    this.envs = new Envs(control, clock);
    this.perUser = new LoginRateLimiter(clock, { maxFailures: 10, windowMs: 15 * 60_000 });
    this.perAddress = new LoginRateLimiter(clock, { maxFailures: 100, windowMs: 15 * 60_000 });
    // consulted only while the address is over its limit: then one failure locks the user there
    this.perUserAtAddress = new LoginRateLimiter(clock, { maxFailures: 1, windowMs: 15 * 60_000 });
    this.reindex();
    control.onChange(() => this.reindex());
    this.usage.start(opts.usageFlushMs ?? 10_000);
    this.activity.start(opts.usageFlushMs ?? 10_000);
  }

  private reindex(): void {
    const doc = this.opts.control.doc;
    this.keysByHmac = new Map(doc.apiKeys.map((k) => [k.secretHmac, k]));
    this.tokensByHmac = new Map(doc.ingestTokens.map((t) => [t.secretHmac, t]));
    this.usersById = new Map(doc.users.map((u) => [u.id, u]));
    this.revoked = new Set(doc.revokedSessions.map((s) => s.jti));
    this.mcpKeys = doc.apiKeys.some((k) => k.scopes.includes('mcp'));
    this.activity.reindex(doc);
  }

  /** True once any MCP-scoped API key exists: from then on only MCP keys may use /mcp. */
  mcpKeyExists(): boolean {
    return this.mcpKeys;
  }

  /** Any secret: `svk_…` API key, `svi_…` ingest token, else a session JWT. */
  async authenticate(secret: string): Promise<Principal> {
    if (secret.startsWith(API_KEY_PREFIX)) return this.authenticateApiKey(secret);
    if (secret.startsWith(INGEST_TOKEN_PREFIX)) return this.authenticateIngestToken(secret);
    return this.authenticateSession(secret);
  }

  /** Unknown and deleted keys: invalid_credentials; disabled and expired ones, and those their owner cannot back, say so. All 401. */
  authenticateApiKey(secret: string): ApiKeyPrincipal {
    const rec = this.lookup(this.keysByHmac, secret);
    if (!rec) throw new SvcError('invalid_credentials', 'API key is not valid');
    const now = this.opts.clock.now();
    const state = keyState(rec, now);
    if (state === 'disabled') throw new SvcError('disabled_credentials', 'API key is disabled');
    if (state === 'expired') throw new SvcError('expired_credentials', 'API key has expired');
    const refusal = ownerRefusal(rec, rec.ownerId ? this.usersById.get(rec.ownerId) : undefined);
    if (refusal) throw refusal;
    this.usage.touch(rec.id, now);
    return {
      kind: 'api_key',
      id: rec.id,
      name: rec.name,
      scopes: new Set<Scope>(rec.scopes),
      allow: rec.allow,
      createdBy: rec.createdBy,
    };
  }

  /**
   * For ingest endpoints, including protocol routes that answer auth errors in their own shape.
   * A valid API key is 403 insufficient_scope (ingest needs an ingest token); anything else unknown is 401.
   */
  authenticateIngestToken(secret: string): IngestPrincipal {
    if (secret.startsWith(API_KEY_PREFIX)) {
      this.authenticateApiKey(secret);
      throw new SvcError('insufficient_scope', 'API keys cannot push logs; use an ingest token');
    }
    const rec = this.lookup(this.tokensByHmac, secret);
    if (!rec) throw new SvcError('invalid_credentials', 'ingest token is not valid');
    if (rec.disabled) throw new SvcError('disabled_credentials', 'ingest token is disabled');
    this.usage.touch(rec.id, this.opts.clock.now());
    return {
      kind: 'ingest_token',
      id: rec.id,
      name: rec.name,
      pin: rec.index === undefined ? { env: rec.env } : { env: rec.env, index: rec.index },
    };
  }

  /** The stored key or token a secret belongs to, whatever its state (for audit of refusals). */
  identify(secret: string): { id: string; name: string } | undefined {
    const index = secret.startsWith(API_KEY_PREFIX)
      ? this.keysByHmac
      : secret.startsWith(INGEST_TOKEN_PREFIX)
        ? this.tokensByHmac
        : undefined;
    const rec = index && this.lookup<ApiKeyRecord | IngestTokenRecord>(index, secret);
    return rec ? { id: rec.id, name: rec.name } : undefined;
  }

  /** HMAC lookup, then a constant-time comparison of the stored HMAC. */
  private lookup<T extends { secretHmac: string }>(index: Map<string, T>, secret: string): T | undefined {
    const rec = index.get(this.hasher.hmac(secret));
    return rec && this.hasher.matches(secret, rec.secretHmac) ? rec : undefined;
  }

  async authenticateSession(token: string): Promise<UserPrincipal> {
    const claims = await this.sessions.verify(token);
    const user = this.usersById.get(claims.sub);
    if (!user) throw new SvcError('invalid_credentials', 'session user no longer exists');
    if (user.disabled) throw new SvcError('disabled_credentials', 'this user is disabled');
    if (claims.sep !== user.sessionEpoch || this.revoked.has(claims.jti)) {
      throw new SvcError('session_expired', 'session was ended; log in again');
    }
    this.activity.touch(claims);
    return userPrincipal(user, claims.jti);
  }

  /**
   * Password login, throttled (docs/access.md, "Login throttling"). Wrong user and wrong
   * password look the same. `address` is the client's (behind SVC_TRUSTED_PROXIES, the forwarded one).
   * - 10 failures of one user, from any address: that user is locked for the window (guessing one
   *   account from many addresses);
   * - 100 failures from one address: from then on a user who failed from that address is locked there
   *   (spraying many accounts). Users without a failure from it still log in: the address is often a
   *   NAT or an untrusted proxy shared by everyone, and locking it would lock them all out.
   */
  async login(username: string, password: string, address: string): Promise<LoginResult> {
    const userKey = [`u:${username}`];
    const pairKey = [`u:${username}|a:${address}`];
    const addrKey = `a:${address}`;
    this.perUser.check(userKey);
    if (this.perAddress.isOver(addrKey)) this.perUserAtAddress.check(pairKey);
    const user = this.users.byUsername(username);
    const ok = await verifyPassword(password, user?.passwordHash ?? unusableHash(this.opts.hashPolicy));
    // a disabled user gets the answer a wrong password gets: the form must not tell who exists
    if (!user || !ok || user.disabled) {
      this.perUser.fail(userKey);
      this.perUserAtAddress.fail(pairKey);
      this.perAddress.fail([addrKey]);
      throw new SvcError('invalid_credentials', 'invalid username or password');
    }
    this.perUser.succeed(userKey);
    this.perUserAtAddress.succeed(pairKey);
    if (needsRehash(user.passwordHash, this.opts.hashPolicy)) await this.rehash(user, password);
    return this.issueSession(user);
  }

  /** A hash of an older cost or algorithm is replaced now that the password is known; a failure only waits for the next login. */
  private async rehash(user: UserRecord, password: string): Promise<void> {
    try {
      await this.users.rehash(user.id, user.passwordHash, password);
    } catch (e) {
      this.opts.log.warn(
        { err: e, user: user.username },
        'cannot store the password at the current hashing cost; will try at the next login',
      );
    }
  }

  /** A session for a user who proved who they are (password, or a SAML assertion: auth/saml). */
  async issueSession(user: UserRecord): Promise<LoginResult> {
    const { token, claims } = await this.sessions.issue(user.id, user.sessionEpoch);
    return { token, expiresAt: new Date(claims.exp * 1000).toISOString(), user: userView(user) };
  }

  /** Ends a session for every node (the JWT id is kept in the control plane until it expires). */
  async logout(p: Principal): Promise<void> {
    if (p.kind !== 'user') return;
    const now = this.opts.clock.now();
    const expiresAt = new Date(now + this.opts.sessionTtlHours * 3_600_000).toISOString();
    await this.opts.control.mutate((doc) => {
      doc.revokedSessions = doc.revokedSessions.filter((s) => Date.parse(s.expiresAt) > now);
      doc.revokedSessions.push({ jti: p.sessionId, expiresAt });
    });
  }

  /** Ends every session of every user (admin reset). */
  async revokeAllSessions(): Promise<void> {
    await this.opts.control.mutate((doc) => {
      for (const u of doc.users) u.sessionEpoch++;
      doc.revokedSessions = [];
    });
  }

  async close(): Promise<void> {
    await this.usage.close();
    await this.activity.close();
  }
}

export function userPrincipal(user: UserRecord, sessionId: string): UserPrincipal {
  const admin = user.role === 'admin';
  return {
    kind: 'user',
    id: user.id,
    name: user.username,
    role: user.role,
    scopes: new Set<Scope>(admin ? ['standard', 'admin'] : ['standard']),
    allow: admin ? ALLOW_ALL : user.allow,
    sessionId,
  };
}
