import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { ControlError } from '../control/errors.js';
import { loadOrCreateKeyFile } from '../control/key-file.js';

/**
 * The JWT signing secret: any file of at least 32 bytes, or a generated one (mode 0600) when
 * `create` allows it. A node joining a shared store must not make its own: its sessions would be
 * refused by every other node, so it is told to copy the cluster's.
 */
export function loadJwtSecret(path: string, log: Logger, opts: { create: boolean }): Uint8Array {
  if (existsSync(path)) {
    const raw = readFileSync(path);
    const text = raw.toString('utf8').trim();
    const secret = Buffer.from(text.length > 0 ? text : raw);
    if (secret.length < 32)
      throw new ControlError(`JWT secret at ${path} (SVC_JWT_SECRET_PATH) is shorter than 32 bytes`);
    return secret;
  }
  if (!opts.create) {
    throw new ControlError(
      `missing JWT secret at ${path} (SVC_JWT_SECRET_PATH): this node joins a shared store whose nodes sign sessions with their secret; ` +
        'every node needs the same JWT secret, copy the file from a running node. Nothing was written',
    );
  }
  const { key } = loadOrCreateKeyFile(path, 'JWT secret (SVC_JWT_SECRET_PATH)', { create: true });
  log.info({ path }, 'generated a new JWT secret: sessions signed with any earlier secret are no longer valid');
  return Buffer.from(key.toString('base64'));
}

/**
 * A keyed fingerprint of the JWT secret, stored in the control plane so that nodes can compare
 * secrets without any of them ever storing one: HMAC-SHA256 under a key derived from the control key
 * (a store reader without the control key learns nothing it could test guesses against).
 */
export function jwtFingerprint(controlKey: Buffer, jwtSecret: Uint8Array): string {
  const key = Buffer.from(hkdfSync('sha256', controlKey, Buffer.alloc(0), 'svc jwt fingerprint v1', 32));
  return createHmac('sha256', key).update(jwtSecret).digest('hex');
}

/** Refuses a node whose JWT secret is not the one the cluster's fingerprint was made from. */
export function assertSameJwtSecret(stored: string, mine: string, path: string): void {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(mine, 'hex');
  if (a.length === b.length && timingSafeEqual(a, b)) return;
  throw new ControlError(
    `the JWT secret at ${path} (SVC_JWT_SECRET_PATH) differs from the one the other nodes of this shared store use: ` +
      'every node needs the same JWT secret (sessions made on one node are checked on any other); copy the file from a running node. Nothing was written',
  );
}
