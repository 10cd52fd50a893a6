#!/usr/bin/env node
// Copy-paste check of `npm run lint`: at most MAX_PAIRS places sharing MIN_LINES or more lines
// in src/ and in web/src each (jscpd). A new copy fails the lint with where both halves are.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAX_PAIRS = 5;
const MIN_LINES = 6;
const MIN_TOKENS = 40;
const TREES = ['src', 'web/src'];

let failed = false;
for (const tree of TREES) {
  const out = mkdtempSync(join(tmpdir(), 'svc-jscpd-'));
  try {
    const args = [
      '--min-lines',
      String(MIN_LINES),
      '--min-tokens',
      String(MIN_TOKENS),
      '--reporters',
      'json',
      '--output',
      out,
      '--silent',
      tree,
    ];
    execFileSync(join('node_modules', '.bin', 'jscpd'), args, { stdio: 'ignore' });
    const report = JSON.parse(readFileSync(join(out, 'jscpd-report.json'), 'utf8'));
    const pairs = report.duplicates;
    const where = (f) => `${f.name}:${f.start}-${f.end}`;
    console.log(`duplicates: ${tree}: ${pairs.length} pair(s) of ${MIN_LINES}+ lines (at most ${MAX_PAIRS})`);
    if (pairs.length > MAX_PAIRS) {
      failed = true;
      for (const p of pairs) console.log(`  ${where(p.firstFile)}  =  ${where(p.secondFile)}`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
if (failed) {
  console.error('duplicates: too many copies; give the shared lines one home');
  process.exit(1);
}
