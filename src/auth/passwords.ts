import { pbkdf2, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify<string, Buffer, number, ScryptOptions, Buffer>(scrypt);
const pbkdf2Async = promisify(pbkdf2);

/** scrypt cost: N=2^15, r=8, p=1 (32 MiB, ~60 ms here). Parameters are stored with each hash. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1 };
/** PBKDF2-HMAC-SHA256 iterations in FIPS mode (OWASP 2023). */
const PBKDF2_ITERATIONS = 600_000;
const KEY_LEN = 32;

/**
 * Hashes a password for storage: scrypt, or PBKDF2-SHA256 in FIPS mode (scrypt is not an approved
 * primitive). Format: `scrypt$N$r$p$salt$hash` / `pbkdf2-sha256$iterations$salt$hash`, base64 parts.
 */
export async function hashPassword(password: string, fips: boolean): Promise<string> {
  const salt = randomBytes(16);
  if (fips) {
    const hash = await pbkdf2Async(password, salt, PBKDF2_ITERATIONS, KEY_LEN, 'sha256');
    return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${salt.toString('base64')}$${hash.toString('base64')}`;
  }
  const hash = await scryptAsync(password, salt, KEY_LEN, { ...SCRYPT, maxmem: 128 * SCRYPT.N * SCRYPT.r * 2 });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Constant-time check of a password against a stored hash; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  let expected: Buffer;
  let actual: Buffer;
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [N, r, p] = parts.slice(1, 4).map(Number);
    expected = Buffer.from(parts[5], 'base64');
    actual = await scryptAsync(password, Buffer.from(parts[4], 'base64'), expected.length, { N, r, p, maxmem: 128 * N * r * 2 });
  } else if (parts[0] === 'pbkdf2-sha256' && parts.length === 4) {
    expected = Buffer.from(parts[3], 'base64');
    actual = await pbkdf2Async(password, Buffer.from(parts[2], 'base64'), Number(parts[1]), expected.length, 'sha256');
  } else {
    return false;
  }
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A hash that matches no password, verified against when the user does not exist (even timing). */
export function unusableHash(fips: boolean): string {
  const zeros = Buffer.alloc(KEY_LEN).toString('base64');
  const salt = Buffer.alloc(16).toString('base64');
  return fips ? `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${salt}$${zeros}` : `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt}$${zeros}`;
}
