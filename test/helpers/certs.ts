import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CertPair {
  /** Paths of the PEM certificate and key. */
  cert: string;
  key: string;
  certPem: Buffer;
}

/** A self-signed certificate for 127.0.0.1 with CN `name`, made by openssl in `dir` (a client trusts it as its CA). */
export function makeCert(dir: string, name: string): CertPair {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key, certPem: readFileSync(cert) };
}
