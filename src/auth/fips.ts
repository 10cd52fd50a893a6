import { createCipheriv, createHash, getFips, randomBytes, setFips } from 'node:crypto';

export class FipsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FipsError';
  }
}

/**
 * Turns on OpenSSL's FIPS mode and proves it works with a real SHA-256 and AES-256-GCM call
 * (docs/decisions/0014-fips-mode-proven-at-start.md): Node's bundled OpenSSL accepts setFips(true) without a
 * FIPS provider, and every hash fails afterwards. Throws FipsError with the remedy; start-up must stop on it.
 */
export function enableFips(): void {
  try {
    setFips(true);
    createHash('sha256').update('svc fips self-test').digest();
    const cipher = createCipheriv('aes-256-gcm', randomBytes(32), randomBytes(12));
    cipher.update('svc fips self-test');
    cipher.final();
    cipher.getAuthTag();
  } catch (e) {
    throw new FipsError(
      `SVC_FIPS=1 but OpenSSL's FIPS provider cannot be used (${e instanceof Error ? e.message : String(e)}; ` +
        `Node ${process.versions.node}, OpenSSL ${process.versions.openssl}, FIPS mode ${getFips() ? 'on' : 'off'}). ` +
        'Install the OpenSSL 3 FIPS provider (fips.so / fips.dylib), set OPENSSL_CONF to an openssl.cnf that activates it ' +
        'and OPENSSL_MODULES to the directory holding it (on macOS also DYLD_FALLBACK_LIBRARY_PATH), or unset SVC_FIPS.',
    );
  }
}
