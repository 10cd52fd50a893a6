import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';

/**
 * The two CommonJS bundles of the single executable (docs/packaging.md): the `svc` command line
 * (src/cli/main.ts, which serves by default) and the decode worker's code, which the executable
 * starts from memory (src/workers/paths.ts). Everything but Node's built-ins is inside.
 */

/** `require('@duckdb/node-bindings-<platform>/duckdb.node')` in @duckdb/node-bindings' duckdb.js. */
const DUCKDB_ADDON = /^@duckdb\/node-bindings-([a-z0-9-]+)\/duckdb\.node$/;

/**
 * A SEA's require loads built-ins only, and a .node file cannot be bundled: the bindings' require
 * of the linux-x64 addon becomes a call to src/packaged/carried.ts, which writes the addon to the
 * cache, checks it by hash and dlopens it; the other platforms' requires (never taken on Linux x64
 * glibc) throw.
 */
function duckdbAddon(root: string): Plugin {
  const carried = join(root, 'src', 'packaged', 'carried.ts');
  return {
    name: 'duckdb-addon',
    setup(b) {
      b.onResolve({ filter: DUCKDB_ADDON }, (args) => ({ path: args.path, namespace: 'duckdb-addon' }));
      b.onLoad({ filter: /.*/, namespace: 'duckdb-addon' }, (args) => {
        const platform = DUCKDB_ADDON.exec(args.path)?.[1];
        const contents =
          platform === 'linux-x64'
            ? `module.exports = require(${JSON.stringify(carried)}).loadCarriedAddon('duckdb', 'duckdb.node');`
            : `throw new Error(${JSON.stringify(`cannot load DuckDB for ${platform}: this executable carries the linux-x64 (glibc) build`)});`;
        return { contents, loader: 'js', resolveDir: root };
      });
    },
  };
}

/**
 * `await import('node:http')` (the AWS SDK's instance-metadata credentials) would stay an import(),
 * which a SEA's main script built with its code cache cannot run on Node 20
 * (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): a built-in imported that way becomes a bundled module
 * that requires it, and esbuild turns the import() into a plain call.
 */
function builtinImports(): Plugin {
  return {
    name: 'builtin-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) =>
        args.kind === 'dynamic-import' && isBuiltin(args.path)
          ? { path: args.path, namespace: 'builtin-import' }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'builtin-import' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

/** Optional packages their users require inside try/catch (debug's colours), not installed here. */
const OPTIONAL = /^supports-color$/;

/**
 * An optional package that is not installed would reach the SEA's require, which warns on stderr
 * before it throws: it becomes a bundled module that throws what a missing module throws.
 */
function absentOptionals(): Plugin {
  return {
    name: 'absent-optionals',
    setup(b) {
      b.onResolve({ filter: OPTIONAL }, (args) => ({ path: args.path, namespace: 'absent-optional' }));
      b.onLoad({ filter: /.*/, namespace: 'absent-optional' }, (args) => ({
        contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}), { code: 'MODULE_NOT_FOUND' });`,
        loader: 'js',
      }));
    },
  };
}

/** The bundle must need nothing but built-ins at run time, and keep no import() (see builtinImports). */
function checkExternals(meta: Metafile): void {
  for (const [file, out] of Object.entries(meta.outputs)) {
    for (const i of out.imports) {
      if (!i.external) continue;
      if (i.kind === 'dynamic-import')
        throw new Error(`cannot package: ${file} keeps import("${i.path}"), which a SEA cannot run`);
      if (!isBuiltin(i.path)) throw new Error(`cannot package: ${file} needs "${i.path}" at run time`);
    }
  }
}

export interface Bundles {
  main: string;
  worker: string;
}

/** Writes `svc.cjs` and `decode-worker.cjs` into outDir; throws on any esbuild warning (an unknown dynamic require is one). */
export async function bundle(root: string, outDir: string): Promise<Bundles> {
  const common: BuildOptions = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'eof',
    define: { 'import.meta.url': 'import_meta_url', 'import.meta.resolve': 'import_meta_resolve' },
    inject: [join(root, 'scripts', 'package', 'import-meta-shim.js')],
    plugins: [duckdbAddon(root), builtinImports(), absentOptionals()],
    metafile: true,
    logLevel: 'silent',
  };
  const entries = {
    main: ['src/cli/main.ts', 'svc.cjs'],
    worker: ['src/workers/decode-worker.ts', 'decode-worker.cjs'],
  } as const;
  const out = {} as Bundles;
  for (const [key, [entry, file]] of Object.entries(entries) as [keyof Bundles, readonly [string, string]][]) {
    const r = await build({ ...common, entryPoints: [join(root, entry)], outfile: join(outDir, file) });
    if (r.warnings.length > 0)
      throw new Error(
        `cannot package: esbuild warned about ${entry}:\n${r.warnings.map((w) => `  ${w.location?.file}:${w.location?.line}: ${w.text}`).join('\n')}`,
      );
    checkExternals(r.metafile ?? { inputs: {}, outputs: {} });
    out[key] = join(outDir, file);
  }
  return out;
}
