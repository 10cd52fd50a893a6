import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The layout's rules (docs/architecture.md), checked on the source itself so they cannot rot:
 * no import cycle, ingest and events independent of storage and of the app (http/ above, the HTTP
 * kit below), HTTP statuses only at the edge, files a reader can hold in their head.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const ALL = files(SRC);
const rel = (p: string) => relative(SRC, p).replaceAll('\\', '/');
const text = new Map(ALL.map((f) => [rel(f), readFileSync(f, 'utf8')]));

/** Relative imports (static, type-only and dynamic) of a file, as paths under src/. */
function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const m of text.get(file)!.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = rel(resolve(dirname(join(SRC, file)), m[1])).replace(/\.js$/, '.ts');
    if (text.has(target)) out.push(target);
  }
  return out;
}

const graph = new Map([...text.keys()].map((f) => [f, importsOf(f)]));

function findCycle(): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): string[] | null => {
    if (state.get(f) === 'done') return null;
    if (state.get(f) === 'open') return [...stack.slice(stack.indexOf(f)), f];
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      const c = visit(g);
      if (c) return c;
    }
    stack.pop();
    state.set(f, 'done');
    return null;
  };
  for (const f of graph.keys()) {
    const c = visit(f);
    if (c) return c;
  }
  return null;
}

/** A protocol's edge: the route that reads requests and the responder that writes its answers. */
const isProtocolEdge = (f: string) => /^ingest\/[^/]+\/(route|respond)\.ts$/.test(f);

/** Code only: comments and the contents of string literals left out (help texts quote queries like `status=500`). */
function code(t: string): string {
  return t
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, "''");
}

/** Imports that load a module when the importer runs (type-only imports are erased): relative ones as paths under src/, packages by name. */
function runtimeImports(file: string): { local: string[]; packages: string[] } {
  const local: string[] = [];
  const packages: string[] = [];
  for (const m of text
    .get(file)!
    .matchAll(
      /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/gm,
    )) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith('.')) packages.push(spec);
    else {
      const target = rel(resolve(dirname(join(SRC, file)), spec)).replace(/\.js$/, '.ts');
      if (text.has(target)) local.push(target);
    }
  }
  return { local, packages };
}

describe('the source layout', () => {
  it('has no import cycle', () => {
    const c = findCycle();
    assert.equal(c, null, c ? `cycle: ${c.join(' → ')}` : '');
  });

  it('keeps ingest and events free of storage', () => {
    const bad = [...graph]
      .filter(([f]) => /^(ingest|events)\//.test(f))
      .flatMap(([f, deps]) => deps.filter((d) => d.startsWith('storage/')).map((d) => `${f} → ${d}`));
    assert.deepEqual(bad, []);
  });

  it("lets only a protocol's route and responder see the HTTP kit", () => {
    const bad = [...graph]
      .filter(([f]) => /^(ingest|events)\//.test(f) && !isProtocolEdge(f))
      .flatMap(([f, deps]) => deps.filter((d) => d.startsWith('http-kit/')).map((d) => `${f} → ${d}`));
    assert.deepEqual(bad, []);
  });

  it('keeps one direction between the app and ingest: http/ above, the HTTP kit below both', () => {
    // http/ composes the app and mounts every protocol's route; the protocols get what they share
    // with it (error statuses, raw bodies, tokens, the principal) from http-kit/, never from http/
    const above = (f: string, deps: string[], prefix: string) =>
      deps.filter((d) => d.startsWith(prefix)).map((d) => `${f} → ${d}`);
    const bad = [...graph].flatMap(([f, deps]) => [
      ...(/^(ingest|events)\//.test(f) ? above(f, deps, 'http/') : []),
      ...(f.startsWith('http-kit/') ? [...above(f, deps, 'http/'), ...above(f, deps, 'ingest/')] : []),
    ]);
    assert.deepEqual(bad, []);
  });

  it("sets HTTP statuses only in http/, http-kit/ and the protocols' responders", () => {
    const status = /\b(?:code|status|statusCode)\s*[:(=]\s*[1-5]\d\d\b|\.code\(\s*[1-5]\d\d\b/;
    const bad = [...text]
      .filter(([f, t]) => !/^http(-kit)?\//.test(f) && !/\/respond\.ts$/.test(f) && status.test(code(t)))
      .map(([f]) => f);
    assert.deepEqual(bad, []);
  });

  it('lets DuckDB into the decode workers only through the part writer, loaded at the first part', () => {
    // a native addon loaded in a worker thread can abort the whole process when the worker is
    // terminated with its objects open (seen as "terminate called after throwing an instance of
    // 'Napi::Error'" at shutdown): only storage/parts/ may load it, the part writer closes it before
    // the worker exits (the pool asks workers to stop, ingest/common/decode-pool.ts), and nothing
    // else of the worker's imports may load it at all
    const seen = new Set<string>();
    const bad: string[] = [];
    const walk = (f: string) => {
      if (seen.has(f)) return;
      seen.add(f);
      const { local, packages } = runtimeImports(f);
      if (packages.some((p) => p.startsWith('@duckdb/')) && f !== 'storage/parts/part-db.ts') bad.push(f);
      // part-db.ts loads the part builder (and DuckDB) with import() at the first part
      local.filter((l) => !(f === 'storage/parts/part-db.ts' && l === 'storage/parts/part-build.ts')).forEach(walk);
    };
    walk('workers/decode-worker.ts');
    assert.ok(seen.has('storage/parts/part-db.ts'), 'the worker reaches the part writer');
    assert.ok(seen.size > 10, `the walk found the worker's modules (${seen.size})`);
    assert.deepEqual(bad, []);
    assert.match(text.get('storage/parts/part-db.ts')!, /import\('@duckdb\/node-api'\)/, 'DuckDB is loaded lazily');
  });

  it('keeps every file under 400 lines, but the parser and the timestamp reader', () => {
    const allowed = new Set(['query/parser.ts', 'events/timestamp.ts']);
    const big = [...text]
      .filter(([f, t]) => !allowed.has(f) && t.split('\n').length > 400)
      .map(([f, t]) => `${f}: ${t.split('\n').length}`);
    assert.deepEqual(big, []);
  });
});
