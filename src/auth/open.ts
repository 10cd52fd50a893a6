import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { Config } from '../config/load.js';
import { FileBlobStore, type ControlBlobStore } from '../control/blob-store.js';
import { ensureBuiltinEnvs } from '../control/envs.js';
import { loadOrCreateKeyFile } from '../control/key-file.js';
import { ObjectBlobStore } from '../control/object-blob-store.js';
import { ControlStore } from '../control/store.js';
import type { ObjectStore } from '../shared-store/object-store.js';
import { bootstrapAdmin } from './bootstrap.js';
import { assertSameJwtSecret, jwtFingerprint, loadJwtSecret } from './jwt-secret.js';
import { enableFips } from './fips.js';
import { SamlBinding } from './saml/binding.js';
import { AuthService } from './service.js';

export interface Access {
  control: ControlStore;
  auth: AuthService;
  /** SVC_ADMIN_RESET=1 reset the admin password at this start (for the self-log). */
  adminReset: boolean;
  /** Binds SAML logins to their browser, with keys derived from the JWT secret (the same on every node). */
  samlBinding: SamlBinding;
  close(): Promise<void>;
}

export interface AccessOptions {
  /** The shared store (SVC_STORE), opened by the caller; undefined: svc runs alone on its data dir. */
  store?: ObjectStore;
  /** Where the generated admin password is shown (stdout, never the log). */
  print?: (line: string) => void;
}

/**
 * How often a node sharing a store checks the control plane's version (a stat or a HEAD): a change
 * made on another node is seen here within 2 s (one interval, then one read). A lone node checks
 * every SVC_BLOCK_SYNC_SECS, as nobody else writes its file.
 */
export const SHARED_CONTROL_POLL_MS = 1000;

/** Where the control plane lives: an object of the shared store, else a file in the data dir. */
export function controlBlob(config: Readonly<Config>, store: ObjectStore | undefined): ControlBlobStore {
  return store ? new ObjectBlobStore(store) : new FileBlobStore(join(config.dataDir, 'control.json'));
}

/**
 * Start-up of the access subsystem, in order: FIPS self-test, control key, JWT secret, control plane
 * (a wrong key, a corrupt document, another encryption setting or another JWT secret than the
 * cluster's throws ControlError before anything is written), built-in envs, admin.
 */
export async function openAccess(
  config: Readonly<Config>,
  clock: Clock,
  log: Logger,
  opts: AccessOptions = {},
): Promise<Access> {
  const { store, print = (l) => process.stdout.write(l + '\n') } = opts;
  if (config.fips) enableFips();
  const blob = controlBlob(config, store);
  const blobExists = (await blob.version()) !== undefined;
  // a missing key next to an existing control plane is an error: a fresh key could never read it
  const { key: controlKey, created } = loadOrCreateKeyFile(
    config.controlKeyPath,
    'control key (SVC_CONTROL_KEY_PATH)',
    { create: !blobExists },
  );
  if (created) log.info({ path: config.controlKeyPath }, 'generated a new control key');
  // a node joining a shared store uses the cluster's JWT secret, never a new one of its own
  const jwtSecret = loadJwtSecret(config.jwtSecretPath, log, { create: !(store && blobExists) });
  const fingerprint = jwtFingerprint(controlKey, jwtSecret);
  const control = await ControlStore.open({
    blob,
    encryptionKey: config.controlEncryption ? controlKey : undefined,
    clock,
    log,
    init: (doc) => void (doc.cluster = { jwtFingerprint: fingerprint }),
  });
  await checkJwtSecret(control, fingerprint, config.jwtSecretPath, store !== undefined);
  control.watch(store ? SHARED_CONTROL_POLL_MS : config.blockSyncSecs * 1000);
  const auth = new AuthService({
    control,
    clock,
    log,
    controlKey,
    jwtSecret,
    sessionTtlHours: config.sessionTtlHours,
    sessionIdleSecs: config.sessionIdleSecs,
    hashPolicy: { fips: config.fips, weak: config.testWeakPasswordHashes },
  });
  await ensureBuiltinEnvs(control, clock);
  const adminReset = await bootstrapAdmin(auth, config, log, print);
  return {
    control,
    auth,
    adminReset,
    samlBinding: new SamlBinding(jwtSecret),
    async close() {
      await auth.close();
      await control.close();
    },
  };
}

/**
 * Compares this node's JWT secret with the cluster's fingerprint before anything is written. A
 * control plane without one (made before fingerprints, or by a lone node) gets this node's; a lone
 * node whose secret was replaced (deleting the file rotates it) records the new one.
 */
async function checkJwtSecret(
  control: ControlStore,
  fingerprint: string,
  path: string,
  shared: boolean,
): Promise<void> {
  const stored = control.doc.cluster?.jwtFingerprint;
  if (stored === fingerprint) return;
  if (stored !== undefined && shared) assertSameJwtSecret(stored, fingerprint, path);
  await control.mutate((doc) => {
    const now = doc.cluster?.jwtFingerprint;
    // another node recorded its fingerprint between our read and this write: compare with that one
    if (now !== undefined && now !== stored && shared) assertSameJwtSecret(now, fingerprint, path);
    doc.cluster = { jwtFingerprint: fingerprint };
  });
}
