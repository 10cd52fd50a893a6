import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync, fsyncSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ControlError } from './errors.js';

/**
 * Reads a 32-byte secret kept in a file (base64 text, or 32 raw bytes), or creates one with mode
 * 0600 when the file is missing and `create` allows it. Several nodes share a cluster by copying
 * the same file to each.
 */
export function loadOrCreateKeyFile(
  path: string,
  what: string,
  opts: { create: boolean },
): { key: Buffer; created: boolean } {
  if (existsSync(path)) return { key: parseKeyFile(readFileSync(path), path, what), created: false };
  if (!opts.create)
    throw new ControlError(
      `missing ${what} at ${path}: it is needed to read the existing control plane; copy it from another node or restore it`,
    );
  const key = randomBytes(32);
  mkdirSync(dirname(path), { recursive: true });
  // 'wx': never overwrite a key another process created meanwhile
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, key.toString('base64') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { key, created: true };
}

function parseKeyFile(raw: Buffer, path: string, what: string): Buffer {
  if (raw.length === 32) return raw;
  const text = raw.toString('utf8').trim();
  const decoded = /^[A-Za-z0-9+/=_-]+$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
  if (decoded.length === 32) return decoded;
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  throw new ControlError(`cannot read ${what} at ${path}: want 32 bytes as base64 (44 characters), hex (64) or raw`);
}
