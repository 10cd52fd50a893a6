import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { precompress } from './build/precompress.ts';

const outDir = fileURLToPath(new URL('../dist/web', import.meta.url));

/**
 * The web UI is built into dist/web and served by svc under /ui/ (src/http/ui.ts).
 * Hashed file names let the server cache assets forever; index.html is never cached.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  plugins: [react(), precompress(() => outDir)],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 800,
    // the CSP forbids inline scripts: no module-preload polyfill injected into index.html
    modulePreload: { polyfill: false },
  },
  server: {
    // `npm run dev:web` proxies the API to a running svc
    proxy: { '/api': 'http://127.0.0.1:7300' },
  },
});
