import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Clock } from '../clock/clock.js';
import { SvcError } from '../errors/svc-error.js';
import { newId } from './secrets.js';

export interface SessionClaims {
  /** User id. */
  sub: string;
  /** JWT id, for logout. */
  jti: string;
  /** The user's session epoch when the token was issued; a bumped epoch revokes it. */
  sep: number;
  /** Issued at and expiry, seconds since the epoch. */
  iat: number;
  exp: number;
}

/**
 * User sessions as HS256 JWTs signed with the secret at SVC_JWT_SECRET_PATH. Stateless apart from
 * revocation, which the caller checks (logout list, user epoch). A token signed with any other
 * secret (regenerated, or different on another node) fails with invalid_credentials → 401.
 */
export class SessionSigner {
  constructor(
    private readonly secret: Uint8Array,
    private readonly clock: Clock,
    private readonly ttlHours: number,
  ) {}

  async issue(userId: string, epoch: number): Promise<{ token: string; claims: SessionClaims }> {
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: SessionClaims = { sub: userId, jti: newId(), sep: epoch, iat, exp: iat + this.ttlHours * 3600 };
    const token = await new SignJWT({ sep: epoch })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setJti(claims.jti)
      .setIssuer('svc')
      .setIssuedAt(iat)
      .setExpirationTime(claims.exp)
      .sign(this.secret);
    return { token, claims };
  }

  /** Verifies signature, issuer and expiry against the injectable clock. */
  async verify(token: string): Promise<SessionClaims> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        issuer: 'svc',
        currentDate: new Date(this.clock.now()),
      });
      if (
        typeof payload.sub !== 'string' ||
        typeof payload.jti !== 'string' ||
        typeof payload.sep !== 'number' ||
        typeof payload.iat !== 'number' ||
        typeof payload.exp !== 'number'
      ) {
        throw new SvcError('invalid_credentials', 'session token is malformed');
      }
      return { sub: payload.sub, jti: payload.jti, sep: payload.sep, iat: payload.iat, exp: payload.exp };
    } catch (e) {
      if (e instanceof SvcError) throw e;
      if (e instanceof joseErrors.JWTExpired)
        throw new SvcError('session_expired', 'session has expired; log in again');
      throw new SvcError('invalid_credentials', 'session token is not valid; log in again');
    }
  }
}
