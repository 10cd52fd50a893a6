import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long an AuthnRequest may wait for its answer (a person typing a password, perhaps a second factor). */
export const REQUEST_TTL_MS = 10 * 60_000;
/** How long the ACS's hand-over to /complete is good for: one redirect, followed at once. */
export const TICKET_TTL_MS = 2 * 60_000;
/** Logins one browser may have under way at once (two tabs, a second click): the newest are kept. */
export const MAX_PENDING_PER_BROWSER = 3;

/** The browser's pending logins: HttpOnly, sent only to svc's SAML routes. */
export const RELAY_COOKIE = 'svc_saml';

const ID_RE = /^_([0-9a-f]{12})([0-9a-f]{32})([0-9a-f]{32})$/;

/** What the ACS hands to /complete, sealed: the login it validated, for the browser that started it. */
export interface SamlTicket {
  /** The user the assertion matched. */
  userId: string;
  /** The AuthnRequest it answered. */
  requestId: string;
  /** Where the browser goes afterwards (already checked by safeNext). */
  next: string;
  idp?: string;
  nameId?: string;
}

/**
 * Binds a SAML login to the browser that started it, with no state on the server (docs/saml.md,
 * docs/decisions/0016-saml-match-only.md): an AuthnRequest's id carries its creation time and a MAC, so any
 * node can tell that svc issued it and when; the browser keeps the ids of its own logins in the relay cookie;
 * the ACS seals what it validated into a short ticket that only the browser holding the matching id can
 * redeem. Keys come from the JWT secret, which every node of a cluster shares. Stateless: safe to call
 * concurrently.
 */
export class SamlBinding {
  private readonly macKey: Buffer;
  private readonly sealKey: Buffer;

  constructor(jwtSecret: Uint8Array) {
    this.macKey = Buffer.from(hkdfSync('sha256', jwtSecret, Buffer.alloc(0), 'svc saml request id v1', 32));
    this.sealKey = Buffer.from(hkdfSync('sha256', jwtSecret, Buffer.alloc(0), 'svc saml ticket v1', 32));
  }

  private mac(body: string): string {
    return createHmac('sha256', this.macKey).update(body).digest('hex').slice(0, 32);
  }

  /** A new AuthnRequest id (an XML NCName): `_`, the creation time, a nonce, their MAC. */
  newRequestId(nowMs: number): string {
    const body = `${Math.floor(nowMs).toString(16).padStart(12, '0')}${randomBytes(16).toString('hex')}`;
    return `_${body}${this.mac(body)}`;
  }

  /** When svc issued this id, or undefined when svc did not issue it or it is older than REQUEST_TTL_MS. */
  requestCreatedAt(id: string, nowMs: number): number | undefined {
    const m = ID_RE.exec(id);
    if (!m) return undefined;
    const want = Buffer.from(this.mac(m[1] + m[2]), 'hex');
    if (!timingSafeEqual(want, Buffer.from(m[3], 'hex'))) return undefined;
    const createdAt = parseInt(m[1], 16);
    // a little into the future: another node's clock may be ahead of this one
    return createdAt <= nowMs + 60_000 && createdAt + REQUEST_TTL_MS > nowMs ? createdAt : undefined;
  }

  /** The ids a relay cookie holds that are still good, oldest first; anything else in it is dropped. */
  pendingIds(cookie: string | undefined, nowMs: number): string[] {
    if (!cookie) return [];
    return cookie
      .split('.')
      .filter((id) => this.requestCreatedAt(id, nowMs) !== undefined)
      .slice(-MAX_PENDING_PER_BROWSER);
  }

  /** The relay cookie's value with `id` added (the oldest dropped beyond MAX_PENDING_PER_BROWSER). */
  withPending(cookie: string | undefined, id: string, nowMs: number): string {
    return [...this.pendingIds(cookie, nowMs).filter((x) => x !== id), id].slice(-MAX_PENDING_PER_BROWSER).join('.');
  }

  /** AES-256-GCM, so the ticket's contents (a user id, an email) are neither readable nor changeable in the URL. */
  seal(ticket: SamlTicket, nowMs: number): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const plain = JSON.stringify({ ...ticket, exp: nowMs + TICKET_TTL_MS });
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
  }

  /** The ticket, or undefined when it was not sealed by svc, was changed, or has expired. */
  open(sealed: string, nowMs: number): SamlTicket | undefined {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < 29) return undefined;
    try {
      const d = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      const plain = Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
      const t = JSON.parse(plain) as SamlTicket & { exp: number };
      if (!(t.exp > nowMs)) return undefined;
      return { userId: t.userId, requestId: t.requestId, next: t.next, idp: t.idp, nameId: t.nameId };
    } catch {
      // a wrong tag (changed, or sealed with another secret) or garbage: not a ticket of ours
      return undefined;
    }
  }
}
