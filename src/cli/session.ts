import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientEnv } from '../config/client.js';
import { CliError } from './errors.js';

/**
 * The credential `svc login` stores, and which svc and credential a client command uses.
 * The file is `<config dir>/credentials.json`, mode 0600 in a 0700 directory, written through a
 * temporary file and a rename so that a reader never sees half of it.
 */

export const DEFAULT_URL = 'http://127.0.0.1:7300';

export interface StoredSession {
  url: string;
  /** A session token (JWT) or an API key. Never printed. */
  token: string;
  /** Who logged in (a user name, or the API key's name). */
  name: string;
  /** RFC 3339; undefined for an API key without expiry. */
  expiresAt?: string;
}

export function credentialsPath(env: ClientEnv): string {
  return join(env.configDir, 'credentials.json');
}

export function readSession(env: ClientEnv): StoredSession | undefined {
  let text: string;
  try {
    text = readFileSync(credentialsPath(env), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const s = JSON.parse(text) as Partial<StoredSession>;
    return typeof s.url === 'string' && typeof s.token === 'string'
      ? { url: s.url, token: s.token, name: String(s.name ?? ''), expiresAt: s.expiresAt }
      : undefined;
  } catch {
    throw new CliError(`cannot read ${credentialsPath(env)}: not JSON (run svc login again)`);
  }
}

export function writeSession(env: ClientEnv, s: StoredSession): string {
  mkdirSync(env.configDir, { recursive: true, mode: 0o700 });
  const path = credentialsPath(env);
  const tmp = `${path}.${process.pid}.tmp`;
  // mode applies on creation; chmod covers a stale temporary file left by a crash
  writeFileSync(tmp, JSON.stringify(s, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return path;
}

export function removeSession(env: ClientEnv): boolean {
  try {
    rmSync(credentialsPath(env));
    return true;
  } catch {
    return false;
  }
}

/** Which svc a client command talks to, and with which credential (undefined: none). */
export interface Target {
  url: string;
  token: string | undefined;
}

function sameUrl(a: string, b: string): boolean {
  return normalizeUrl(a) === normalizeUrl(b);
}

export function normalizeUrl(u: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(u) ? u : `http://${u}`);
  } catch {
    throw new CliError(`cannot parse URL "${u}" (want http://host:port)`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`unsupported URL "${u}" (want http:// or https://)`, 2);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * SVC_URL, else the stored session's URL, else http://127.0.0.1:7300; SVC_TOKEN, else the stored
 * token, but only for the URL it was stored for: a token is never sent to another server.
 */
export function resolveTarget(env: ClientEnv): Target {
  const stored = readSession(env);
  const url = normalizeUrl(env.url ?? stored?.url ?? DEFAULT_URL);
  const token = env.token ?? (stored && sameUrl(stored.url, url) ? stored.token : undefined);
  return { url, token };
}
