import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config/load.js';

export type TlsPaths = NonNullable<Config['tls']>;

/** How often the certificate and key files are checked for a change (stat only; read when one changed). */
const WATCH_INTERVAL_MS = 2000;

/**
 * The PEM certificate and key at `paths`, checked by building a TLS context from them (a key that does
 * not match its certificate, or a file that is no PEM, fails here and not at the first handshake).
 */
export function readTlsFiles(paths: TlsPaths): { cert: Buffer; key: Buffer } {
  let cert: Buffer;
  let key: Buffer;
  try {
    cert = readFileSync(paths.certPath);
    key = readFileSync(paths.keyPath);
  } catch (e) {
    throw new ConfigError(
      `SVC_TLS_CERT/SVC_TLS_KEY: cannot read ${(e as { path?: string }).path ?? 'the files'}: ${(e as Error).message}`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    throw new ConfigError(
      `SVC_TLS_CERT/SVC_TLS_KEY: cannot use ${paths.certPath} with ${paths.keyPath}: ${(e as Error).message}`,
    );
  }
  return { cert, key };
}

/** Where a reloaded pair goes: the HTTPS server, the OTLP/gRPC listener. */
export interface CertificateHolder {
  setSecureContext(pair: { cert: Buffer; key: Buffer }): void;
}

/**
 * Reloads the certificate and key into `server` when either file changes (renewal by certbot, a
 * cert-manager secret remount): new connections get the new certificate, open ones keep theirs.
 * A pair that does not load (the key written before the certificate, half a file) keeps the old
 * one and is tried again at the next change. Answers the function that stops watching.
 */
export function watchTlsFiles(
  server: CertificateHolder,
  paths: TlsPaths,
  log: Logger,
  onReload?: (paths: TlsPaths) => void,
): () => void {
  const reload = (cur: Stats, prev: Stats) => {
    // watchFile also reports a mere access time change; only the content matters
    if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size && cur.ino === prev.ino) return;
    try {
      server.setSecureContext(readTlsFiles(paths));
      log.info({ cert: paths.certPath }, 'TLS certificate reloaded');
      onReload?.(paths);
    } catch (e) {
      log.warn(
        { err: (e as Error).message },
        'TLS certificate changed but cannot be loaded: still serving the previous one',
      );
    }
  };
  for (const p of [paths.certPath, paths.keyPath])
    watchFile(p, { interval: WATCH_INTERVAL_MS, persistent: false }, reload);
  return () => {
    for (const p of [paths.certPath, paths.keyPath]) unwatchFile(p, reload);
  };
}
