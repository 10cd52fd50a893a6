import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { blockDir, deleteBlockFiles, sidecarPath, toBlock, type Block } from '../blocks/block-files.js';
import type { BlockTarget } from '../blocks/block-writer.js';
import type { BlockMeta } from '../blocks/sidecar.js';
import type { BuiltPart } from './part-build.js';

// The commit of parts (docs/storage.md, "Parts"): a part built and fsynced by a decode worker
// (part-build.ts) gets its name and is published as any block is, Parquet renamed into place and
// the sidecar written last, with the file system's calls off the event loop. The parts of one
// commit are all or none: when there are several, a marker `wal/parts-<seq>.pending` lists them
// while they are published, and a start that finds it removes them (the writes were never
// acknowledged); on an error they are removed at once.

const PENDING = /^parts-\d+\.pending$/;

/** Makes a directory's entries durable, off the event loop. */
async function syncDirAsync(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function writeDurable(path: string, text: string): Promise<void> {
  const fh = await open(path, 'w');
  try {
    await fh.writeFile(text);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

/**
 * Names and publishes `parts` (each already fsynced under its temporary name) into `target`, all or
 * none; returns their blocks for the catalog. `walDir` holds the marker of a commit of several parts.
 */
export async function publishParts(parts: BuiltPart[], target: BlockTarget, walDir: string): Promise<Block[]> {
  const named = parts.map((p) => {
    const name = `${target.node}-${target.nextSeq()}`;
    const dir = blockDir(target.root, p.meta.env, p.meta.index, p.meta.day);
    const meta: BlockMeta = { ...p.meta, name, createdAt: Date.now() };
    return { tmp: p.tmp, final: join(dir, `${name}.parquet`), meta };
  });
  let marker: string | undefined;
  const done: Block[] = [];
  try {
    if (named.length > 1) {
      marker = join(walDir, `parts-${named[0].meta.name.slice(target.node.length + 1)}.pending`);
      await writeDurable(marker, JSON.stringify(named.map((n) => relative(dirname(walDir), n.final))));
      await syncDirAsync(walDir);
    }
    const dirs = new Set<string>();
    for (const n of named) {
      const dir = dirname(n.final);
      if (!dirs.has(dir)) await mkdir(dir, { recursive: true });
      dirs.add(dir);
      await rename(n.tmp, n.final);
      const side = sidecarPath(n.final);
      await writeDurable(`${side}.tmp`, JSON.stringify(n.meta));
      await rename(`${side}.tmp`, side);
      done.push(toBlock(n.meta, n.final));
    }
    for (const dir of dirs) await syncDirAsync(dir);
    if (marker) {
      await rm(marker, { force: true });
      await syncDirAsync(walDir);
    }
    return done;
  } catch (e) {
    unpublish(done);
    for (const n of named) rmSync(n.tmp, { force: true });
    if (marker) rmSync(marker, { force: true });
    throw e;
  }
}

/** Removes a published part that its commit gave up on (the group failed after publishing). */
export function unpublish(blocks: Block[]): void {
  for (const b of blocks) deleteBlockFiles(b);
}

/** A batch of parts the writer refused or could not commit: its files go, nothing was acknowledged. */
export function discardParts(parts: BuiltPart[]): void {
  for (const p of parts) rmSync(p.tmp, { force: true });
}

/**
 * Start-up, before the blocks are loaded: a commit of several parts that did not finish leaves its
 * marker; the parts it lists go (sidecar first), then the marker. None of them was acknowledged.
 */
export function dropUnfinishedParts(walDir: string): number {
  if (!existsSync(walDir)) return 0;
  let dropped = 0;
  for (const n of readdirSync(walDir)) {
    if (!PENDING.test(n)) continue;
    const marker = join(walDir, n);
    let listed: unknown = [];
    try {
      listed = JSON.parse(readFileSync(marker, 'utf8'));
    } catch {
      // a marker cut short by the crash was written before any part was renamed into place
    }
    if (Array.isArray(listed))
      for (const path of listed) {
        if (typeof path !== 'string' || !path.endsWith('.parquet')) continue;
        const file = resolve(dirname(walDir), path); // relative to the data dir
        rmSync(sidecarPath(file), { force: true });
        rmSync(file, { force: true });
        dropped++;
      }
    rmSync(marker, { force: true });
  }
  return dropped;
}

/** The folder decode workers write parts to before their commit; emptied at start (their writes were never acknowledged). */
export function partsScratch(dataDir: string): string {
  const dir = join(dataDir, 'tmp', 'parts');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}
