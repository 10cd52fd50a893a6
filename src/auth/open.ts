import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { Config } from '../config/load.js';
import { FileBlobStore, type ControlBlobStore } from '../control/blob-store.js';
import { ensureBuiltinEnvs } from '../control/envs.js';
import { ControlError } from '../control/errors.js';
import { loadOrCreateKeyFile } from '../control/key-file.js';
import { ControlStore } from '../control/store.js';
import { bootstrapAdmin } from './bootstrap.js';
import { enableFips } from './fips.js';
import { AuthService } from './service.js';

export interface Access {
  control: ControlStore;
  auth: AuthService;
  /** SVC_ADMIN_RESET=1 reset the admin password at this start (for the self-log). */
  adminReset: boolean;
  close(): Promise<void>;
}

/** Where the control plane lives: the shared directory of SVC_STORE, else the data dir. */
export function controlBlob(config: Readonly<Config>, log: Logger): ControlBlobStore {
  if (config.store?.kind === 's3') {
    // The S3 control blob is not built yet: say so rather than silently splitting the cluster.
    log.warn({ store: config.store }, 'the control plane is kept in the local data dir: an S3 control store is not available yet');
    return new FileBlobStore(join(config.dataDir, 'control.json'));
  }
  return new FileBlobStore(join(config.store?.path ?? config.dataDir, 'control.json'));
}

/**
 * Start-up of the access subsystem, in order: FIPS self-test, control key, control plane (a wrong
 * key or corrupt file throws ControlError and nothing is written), JWT secret, built-in envs, admin.
 */
export async function openAccess(config: Readonly<Config>, clock: Clock, log: Logger, print: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<Access> {
  if (config.fips) enableFips();
  const blob = controlBlob(config, log);
  const blobExists = (await blob.stamp()) !== undefined;
  // a missing key next to an existing control plane is an error: a fresh key could never read it
  const { key: controlKey, created } = loadOrCreateKeyFile(config.controlKeyPath, 'control key (SVC_CONTROL_KEY_PATH)', { create: !blobExists });
  if (created) log.info({ path: config.controlKeyPath }, 'generated a new control key');
  const control = await ControlStore.open({ blob, encryptionKey: config.controlEncryption ? controlKey : undefined, clock, log });
  control.watch(config.blockSyncSecs * 1000);
  const auth = new AuthService({
    control,
    clock,
    log,
    controlKey,
    jwtSecret: loadJwtSecret(config.jwtSecretPath, log),
    sessionTtlHours: config.sessionTtlHours,
    fips: config.fips,
  });
  await ensureBuiltinEnvs(control, clock);
  const adminReset = await bootstrapAdmin(auth, config, log, print);
  return {
    control,
    auth,
    adminReset,
    async close() {
      await auth.close();
      await control.close();
    },
  };
}

/** The JWT signing secret: any file of at least 32 bytes, or a generated one (mode 0600). */
function loadJwtSecret(path: string, log: Logger): Uint8Array {
  if (existsSync(path)) {
    const raw = readFileSync(path);
    const text = raw.toString('utf8').trim();
    const secret = Buffer.from(text.length > 0 ? text : raw);
    if (secret.length < 32) throw new ControlError(`JWT secret at ${path} (SVC_JWT_SECRET_PATH) is shorter than 32 bytes`);
    return secret;
  }
  const { key } = loadOrCreateKeyFile(path, 'JWT secret (SVC_JWT_SECRET_PATH)', { create: true });
  log.info({ path }, 'generated a new JWT secret: sessions signed with any earlier secret are no longer valid');
  return Buffer.from(key.toString('base64'));
}
