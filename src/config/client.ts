import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * What the `svc` command line's client commands read from the environment
 * (docs/decisions/0019-one-command-one-executable.md). Beside load.ts, the only reader of process.env: the
 * server's settings stay in load.ts and its schema, these are a client's (which svc to talk to, with which
 * credential, and how to print).
 */
export interface ClientEnv {
  /** SVC_URL: the svc to talk to; wins over the URL stored by `svc login`. */
  url: string | undefined;
  /** SVC_TOKEN: a session token or an API key (`svk_…`); wins over the stored one. */
  token: string | undefined;
  /** SVC_INGEST_TOKEN: an ingest token (`svi_…`) for `svc ingest`. */
  ingestToken: string | undefined;
  /** `$XDG_CONFIG_HOME/svc`, else `~/.config/svc`. */
  configDir: string;
  /** NO_COLOR set to anything but the empty string (no-color.org). */
  noColor: boolean;
}

const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

export function loadClientEnv(env: NodeJS.ProcessEnv = process.env): Readonly<ClientEnv> {
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  // the XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored
  const base = xdg && isAbsolute(xdg) ? xdg : join(nonEmpty(env.HOME) ?? homedir(), '.config');
  return Object.freeze({
    url: nonEmpty(env.SVC_URL),
    token: nonEmpty(env.SVC_TOKEN),
    ingestToken: nonEmpty(env.SVC_INGEST_TOKEN),
    configDir: join(base, 'svc'),
    noColor: (env.NO_COLOR ?? '') !== '',
  });
}
