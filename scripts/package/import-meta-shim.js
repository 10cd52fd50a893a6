// import.meta inside the CommonJS bundle of the single executable (bundle.ts defines
// `import.meta.url` and `import.meta.resolve` as these): the module's URL is the executable's own
// path (a SEA's __filename), and nothing is resolved at run time (only the tsx path of
// src/ingest/common/decode-pool.ts asks, which the executable never takes).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- this runs inside the CommonJS bundle (no import there)
export const import_meta_url = require('node:url').pathToFileURL(__filename).href;
export function import_meta_resolve(specifier) {
  throw new Error(`BUG: import.meta.resolve("${specifier}") inside the single executable`);
}
