import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The decision records (docs/decisions/) stay the ones the code cites: every record a comment or a
 * document names exists, nothing cites the old design record kept outside the repository, each
 * record has its parts and is in the index, and the code it points at is still there.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DECISIONS = join(ROOT, 'docs', 'decisions');
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

function walk(dir: string, keep: (p: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (n === 'node_modules' || n === 'dist') return [];
    return statSync(p).isDirectory() ? walk(p, keep) : keep(p) ? [p] : [];
  });
}

const isCode = (p: string) => /\.(ts|tsx|mjs|js)$/.test(p) && !p.endsWith('.d.ts');
const code = ['src', 'web/src', 'test', 'bench', 'scripts'].flatMap((d) => walk(join(ROOT, d), isCode));
const docs = [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'), (p) => p.endsWith('.md'))];
const read = (p: string) => readFileSync(p, 'utf8');
const rel = (p: string) => relative(ROOT, p).replaceAll('\\', '/');

const RECORD = /^(\d{4})-[a-z0-9-]+\.md$/;
const records = existsSync(DECISIONS)
  ? readdirSync(DECISIONS)
      .filter((n) => RECORD.test(n))
      .sort()
  : [];

/** Record files a text names: `docs/decisions/NNNN-….md` anywhere, and relative Markdown links in docs. */
function citedRecords(file: string, text: string): string[] {
  const out = [...text.matchAll(/docs\/decisions\/(\d{4}-[a-z0-9-]+\.md)/g)].map((m) => m[1]);
  if (file.endsWith('.md')) {
    for (const m of text.matchAll(/\]\((?:\.\.\/)?(?:decisions\/)?(\d{4}-[a-z0-9-]+\.md)\)/g)) out.push(m[1]);
  }
  return out;
}

describe('decision records (docs/decisions/)', () => {
  it('every record a comment or a document cites exists', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const f of [...code, ...docs]) {
      for (const name of citedRecords(f, read(f))) {
        cited++;
        if (!records.includes(name)) missing.push(`${rel(f)} cites docs/decisions/${name}`);
      }
    }
    assert.deepEqual(missing, []);
    assert.ok(cited >= records.length, `only ${cited} citations of ${records.length} records were found`);
  });

  it('no comment or document cites the design record kept outside the repository', () => {
    const outside = /\bDESIGN(?:\.md|:|\s+(?:section\s+)?\d)/;
    const found = [...code, ...docs]
      .filter((f) => rel(f) !== SELF)
      .flatMap((f) =>
        read(f)
          .split('\n')
          .flatMap((line, i) => (outside.test(line) ? [`${rel(f)}:${i + 1}: ${line.trim()}`] : [])),
      );
    assert.deepEqual(found, [], 'point at the file in docs/decisions/ instead');
  });

  it('records are numbered from 0001 without gaps, and the index lists each one', () => {
    assert.ok(records.length > 0);
    records.forEach((name, i) => assert.equal(name.slice(0, 4), String(i + 1).padStart(4, '0'), name));
    const index = read(join(DECISIONS, 'README.md'));
    for (const name of records) assert.ok(index.includes(`](${name})`), `docs/decisions/README.md lists ${name}`);
  });

  it('each record has a context, a decision, its consequences and code that exists', () => {
    for (const name of records) {
      const text = read(join(DECISIONS, name));
      assert.match(text, /^# \d{4}\. /, `${name}: title "# NNNN. …"`);
      for (const part of ['## Context', '## Decision', '## Consequences', '## Code']) {
        assert.ok(text.includes(`\n${part}\n`), `${name} has ${part}`);
      }
      const paths = [...text.matchAll(/`((?:src|web|test|bench|scripts)\/[^`\s*<>]+)`/g)].map((m) => m[1]);
      assert.ok(paths.length > 0, `${name} points at code`);
      for (const p of paths) assert.ok(existsSync(join(ROOT, p)), `${name} names ${p}, which does not exist`);
    }
  });
});
