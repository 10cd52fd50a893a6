import { createHmac, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const API_KEY_PREFIX = 'svk_';
export const INGEST_TOKEN_PREFIX = 'svi_';

/** 32 random bytes as base62 (43 characters), no padding or symbols: safe in every header form. */
export function randomBase62(bytes = 32): string {
  let n = BigInt('0x' + randomBytes(bytes).toString('hex'));
  const width = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

export function newSecret(prefix: typeof API_KEY_PREFIX | typeof INGEST_TOKEN_PREFIX): string {
  return prefix + randomBase62(32);
}

export function newId(): string {
  return randomUUID();
}

/**
 * Hashes presented secrets for storage and lookup. The key is derived from the control key, so
 * every node that can read the control plane computes the same HMACs, and a copy of the control
 * plane alone (even unencrypted) cannot be turned back into working secrets.
 */
export class SecretHasher {
  private readonly key: Buffer;

  constructor(controlKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', controlKey, Buffer.alloc(0), 'svc secret hmac v1', 32));
  }

  hmac(secret: string): string {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest('hex');
  }

  /** Constant-time: does `secret` hash to `storedHmac`? */
  matches(secret: string, storedHmac: string): boolean {
    return constantTimeEqualHex(this.hmac(secret), storedHmac);
  }
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
