import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Files smaller than this are sent as they are: compressing them saves less than the headers cost. */
const MIN_BYTES = 1024;
const COMPRESSIBLE = /\.(js|css|svg|json|html|txt|map)$/;

/**
 * Writes a Brotli (`.br`, quality 11) and a gzip (`.gz`, level 9) copy next to every built asset
 * worth compressing, once, at build time: svc serves them to browsers that accept them
 * (src/http/ui.ts, @fastify/static's preCompressed), so no request pays for compression and the
 * best levels cost nothing at run time. index.html is left out: svc writes a nonce into it per request.
 */
export function precompress(outDir: () => string): Plugin {
  return {
    name: 'svc-precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(outDir(), 'assets');
      for (const name of readdirSync(assets)) {
        const file = join(assets, name);
        if (!COMPRESSIBLE.test(name) || statSync(file).size < MIN_BYTES) continue;
        const body = readFileSync(file);
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
          }),
        );
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}
