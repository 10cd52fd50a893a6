import { pbkdf2, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';
import { SvcError } from '../errors/svc-error.js';

const scryptAsync = promisify<string, Buffer, number, ScryptOptions, Buffer>(scrypt);
const pbkdf2Async = promisify(pbkdf2);

/**
 * scrypt cost: OWASP's N=2^17, r=8, p=1. Each hash takes 128*N*r = 128 MiB and ~0.6 s of one core
 * here (2 cores: ~3.5 hashes/s at most). Parameters are stored with each hash, so a change here
 * applies to old hashes at their owner's next login (needsRehash).
 */
const SCRYPT = { N: 1 << 17, r: 8, p: 1 };
/** PBKDF2-HMAC-SHA256 iterations in FIPS mode (OWASP 2023: 600,000). */
const PBKDF2_ITERATIONS = 600_000;
/**
 * The cost under SVC_TEST_WEAK_PASSWORD_HASHES (tests only): the suite starts some 300 servers,
 * each hashing and checking the admin's password, and ~1.2 s of CPU each at the real cost was
 * a third of the CI time. Hashes carry their parameters, so such a hash moves to the real cost at
 * its owner's next login once the setting is gone (needsRehash).
 */
const WEAK_SCRYPT = { N: 1 << 10, r: 8, p: 1 };
const WEAK_PBKDF2_ITERATIONS = 1_000;

/** How new hashes are made: PBKDF2-SHA256 in FIPS mode, else scrypt; `weak` only under SVC_TEST_WEAK_PASSWORD_HASHES. */
export interface HashPolicy {
  fips: boolean;
  weak?: boolean;
}
const scryptParams = (policy: HashPolicy) => (policy.weak ? WEAK_SCRYPT : SCRYPT);
const pbkdf2Iterations = (policy: HashPolicy) => (policy.weak ? WEAK_PBKDF2_ITERATIONS : PBKDF2_ITERATIONS);
const KEY_LEN = 32;
/** New passwords (create, change, reset); a shorter one stored before keeps working until changed. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * Node refuses scrypt above `maxmem` (32 MiB by default, below what N=2^17 needs); the limit is
 * the hash's own need plus room, and a stored hash asking for more than 1 GiB is refused as
 * malformed rather than allowed to take the memory.
 */
const MAX_SCRYPT_MEM = 1 << 30;
function scryptMem(N: number, r: number, p: number): number {
  return 128 * N * r + 128 * r * p + (1 << 20);
}

/**
 * At most two hashes run at once: each holds 128 MiB and a thread of libuv's pool of four, which
 * file reads and writes share; a burst of logins waits here instead of starving them.
 */
const MAX_CONCURRENT = 2;
/** A burst beyond this many waiting logins is refused (429) rather than queued without bound. */
const MAX_WAITING = 200;
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) {
    if (waiting.length >= MAX_WAITING)
      throw new SvcError('rate_limited', 'too many logins at once; try again shortly', { retryAfterSecs: 5 });
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    // hand the slot to the next waiter, if any, without releasing it in between
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/**
 * Hashes a password for storage: scrypt, or PBKDF2-SHA256 in FIPS mode (scrypt is not an approved
 * primitive). Format: `scrypt$N$r$p$salt$hash` / `pbkdf2-sha256$iterations$salt$hash`, base64 parts.
 */
export async function hashPassword(password: string, policy: HashPolicy): Promise<string> {
  const salt = randomBytes(16);
  if (policy.fips) {
    const iterations = pbkdf2Iterations(policy);
    const hash = await limited(() => pbkdf2Async(password, salt, iterations, KEY_LEN, 'sha256'));
    return `pbkdf2-sha256$${iterations}$${salt.toString('base64')}$${hash.toString('base64')}`;
  }
  const { N, r, p } = scryptParams(policy);
  const hash = await limited(() => scryptAsync(password, salt, KEY_LEN, { N, r, p, maxmem: scryptMem(N, r, p) }));
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * Constant-time check of a password against a stored hash; false for any malformed hash, and for
 * one whose algorithm this process cannot run (scrypt with OpenSSL in FIPS mode).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  let expected: Buffer;
  let actual: Buffer;
  try {
    if (parts[0] === 'scrypt' && parts.length === 6) {
      const [N, r, p] = parts.slice(1, 4).map(Number);
      if (scryptMem(N, r, p) > MAX_SCRYPT_MEM) return false;
      expected = Buffer.from(parts[5], 'base64');
      actual = await limited(() =>
        scryptAsync(password, Buffer.from(parts[4], 'base64'), expected.length, {
          N,
          r,
          p,
          maxmem: scryptMem(N, r, p),
        }),
      );
    } else if (parts[0] === 'pbkdf2-sha256' && parts.length === 4) {
      expected = Buffer.from(parts[3], 'base64');
      actual = await limited(() =>
        pbkdf2Async(password, Buffer.from(parts[2], 'base64'), Number(parts[1]), expected.length, 'sha256'),
      );
    } else {
      return false;
    }
  } catch (e) {
    if (e instanceof SvcError) throw e;
    return false;
  }
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Whether a stored hash was made otherwise than `hashPassword` makes one now: another algorithm
 * (FIPS mode: PBKDF2-SHA256, else scrypt) or other parameters. Checked after a successful login,
 * when the password is at hand to hash again, so every hash moves to the current cost.
 */
export function needsRehash(stored: string, policy: HashPolicy): boolean {
  const parts = stored.split('$');
  if (policy.fips) return !(parts[0] === 'pbkdf2-sha256' && Number(parts[1]) === pbkdf2Iterations(policy));
  const { N, r, p } = scryptParams(policy);
  return !(parts[0] === 'scrypt' && parts[1] === String(N) && parts[2] === String(r) && parts[3] === String(p));
}

/** The rule for a new password (create, change, reset): MIN_PASSWORD_LENGTH to MAX_PASSWORD_LENGTH characters. */
export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new SvcError('invalid_input', `password: must be at least ${MIN_PASSWORD_LENGTH} characters`, {
      details: { field: 'password' },
    });
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new SvcError('invalid_input', `password: must be at most ${MAX_PASSWORD_LENGTH} characters`, {
      details: { field: 'password' },
    });
}

/** A hash that matches no password, verified against when the user does not exist (even timing). */
export function unusableHash(policy: HashPolicy): string {
  const zeros = Buffer.alloc(KEY_LEN).toString('base64');
  const salt = Buffer.alloc(16).toString('base64');
  const { N, r, p } = scryptParams(policy);
  return policy.fips
    ? `pbkdf2-sha256$${pbkdf2Iterations(policy)}$${salt}$${zeros}`
    : `scrypt$${N}$${r}$${p}$${salt}$${zeros}`;
}
