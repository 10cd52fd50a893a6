import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from './ports.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A real SAML 2.0 IdP for the tests: SimpleSAMLphp from Debian's packages (apt-get install
 * simplesamlphp php-cli php-xml php-mbstring), served by PHP's built-in server on loopback, with
 * the configuration in test/fixtures/saml-idp. `.ci/run` installs the packages.
 */

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'saml-idp');
const WWW = '/usr/share/simplesamlphp/www';

export function idpSkipReason(): string | false {
  if (!existsSync(WWW))
    return 'skipped: SimpleSAMLphp is not installed (apt-get install simplesamlphp php-cli php-xml php-mbstring)';
  return false;
}

export interface IdpCerts {
  dir: string;
  /** The IdP's signing certificate (PEM) and an unrelated one, for "wrong certificate" tests. */
  cert: string;
  wrongCert: string;
}

/** A signing key pair for the IdP and an unrelated certificate, made with openssl in a temp dir. */
export function makeIdpCerts(): IdpCerts {
  const dir = mkdtempSync(join(tmpdir(), 'svc-idp-cert-'));
  const req = (name: string, cn: string) =>
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '30',
        '-subj',
        `/CN=${cn}`,
        '-keyout',
        join(dir, `${name}.key`),
        '-out',
        join(dir, `${name}.crt`),
      ],
      { stdio: 'ignore' },
    );
  req('idp', 'svc-test-idp');
  req('wrong', 'not-the-idp');
  return {
    dir,
    cert: readFileSync(join(dir, 'idp.crt'), 'utf8'),
    wrongCert: readFileSync(join(dir, 'wrong.crt'), 'utf8'),
  };
}

export interface IdpOptions {
  certs: IdpCerts;
  spEntityId: string;
  otherSpEntityId?: string;
  acsUrl: string;
  /** Seconds an assertion is valid; negative: already expired when sent. */
  assertionLifetime?: number;
  /** The IdP's entity id (default: its metadata URL). Two IdPs may share one to look alike. */
  entityId?: string;
}

export interface Idp {
  url: string;
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  /** IdP-initiated login for an SP: the IdP posts an unsolicited assertion to that SP's ACS. */
  idpInitiatedUrl(spEntityId: string): string;
  stop(): Promise<void>;
}

export async function startIdp(opts: IdpOptions): Promise<Idp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const metadataUrl = `${url}/saml2/idp/metadata.php`;
  const entityId = opts.entityId ?? metadataUrl;
  const run = mkdtempSync(join(tmpdir(), 'svc-idp-run-'));
  for (const d of ['log', 'data', 'tmp', 'sessions']) mkdirSync(join(run, d));
  const child: ChildProcess = spawn('php', ['-d', 'display_errors=stderr', '-S', `127.0.0.1:${port}`, '-t', WWW], {
    env: {
      ...process.env,
      SIMPLESAMLPHP_CONFIG_DIR: FIXTURE,
      PHP_CLI_SERVER_WORKERS: '4',
      IDP_PORT: String(port),
      IDP_RUN_DIR: run,
      IDP_CERT_DIR: opts.certs.dir,
      IDP_ENTITY_ID: entityId,
      IDP_SP_ENTITY_ID: opts.spEntityId,
      IDP_OTHER_SP_ENTITY_ID: opts.otherSpEntityId ?? 'urn:svc-test:other-sp',
      IDP_SP_ACS_URL: opts.acsUrl,
      IDP_ASSERTION_LIFETIME: opts.assertionLifetime === undefined ? '' : String(opts.assertionLifetime),
    },
    // its own process group: PHP's workers outlive their parent unless the group is killed
    detached: true,
    stdio: 'ignore',
  });
  const stop = async () => {
    if (child.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    rmSync(run, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(metadataUrl).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`the SimpleSAMLphp IdP did not start on ${url} (see ${run}/log)`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    entityId,
    metadataUrl,
    ssoUrl: `${url}/saml2/idp/SSOService.php`,
    idpInitiatedUrl: (sp) => `${url}/saml2/idp/SSOService.php?spentityid=${encodeURIComponent(sp)}`,
    stop,
  };
}
