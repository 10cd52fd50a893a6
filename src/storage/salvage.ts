import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import type { Logger } from 'pino';
import { queryOn, type Duck } from './duck.js';
import { ident, lit } from './sql-quote.js';
import { sidecarPath, type Block } from './blocks/block-files.js';
import type { BlockTarget } from './blocks/block-writer.js';
import { writeBlocks } from './blocks/seal-blocks.js';
import { DAY_US } from './partition.js';
import type { ProblemReporter } from './problems.js';
import type { Quarantined } from './recovery.js';

// Start-up, after recovery step 1 set a block aside for its damaged sidecar (docs/storage.md,
// "Recovery rule"): what can be read of it is kept. Its Parquet file is sealed again into new
// blocks, when that cannot put an event in two places; else it stays in quarantine/, reported.

export interface SalvageContext {
  target: BlockTarget;
  /** Blocks recovery kept: a merge that replaced the damaged block, or inputs of it, are among them. */
  kept: Block[];
  /** WAL segments being replayed: the events of an uncommitted seal are there. */
  unsealed: number[];
  problems: ProblemReporter;
  log: Logger;
}

const CORE = ['_time', 'env', 'index', 'host', 'source', 'sourcetype', 'message'];

/** Seals again what can be read of each quarantined block; answers the new blocks. */
export async function salvageQuarantined(duck: Duck, list: Quarantined[], ctx: SalvageContext): Promise<Block[]> {
  const out: Block[] = [];
  for (const q of list) {
    const why = elsewhere(q, ctx);
    if (why) {
      ctx.log.warn({ block: q.to, why }, 'quarantined block not read back');
      continue;
    }
    try {
      const made = await duck.with((c) => readBack(c, q.to, ctx.target));
      rmSync(q.to, { force: true });
      rmSync(sidecarPath(q.to), { force: true });
      const events = made.reduce((n, b) => n + b.meta.count, 0);
      ctx.log.warn(
        { block: q.from, events, blocks: made.map((b) => b.meta.name) },
        'quarantined block read back from its Parquet file',
      );
      ctx.problems.resolve(
        'block_quarantined',
        `damaged sidecar (${q.reason}): its ${events} events were read back from the Parquet file into new blocks`,
        q.from,
      );
      out.push(...made);
    } catch (err) {
      ctx.log.error({ err, block: q.to }, 'cannot read back a quarantined block: it stays in quarantine');
    }
  }
  return out;
}

/**
 * Why reading the block back could put its events in two places (undefined when it cannot): what
 * the damaged sidecar still says of its origin must be readable and point nowhere else.
 */
function elsewhere(q: Quarantined, ctx: SalvageContext): string | undefined {
  let meta: { walSeg?: unknown; replaces?: unknown; name?: unknown };
  try {
    meta = JSON.parse(readFileSync(sidecarPath(q.to), 'utf8')) as typeof meta;
  } catch {
    return 'its sidecar is not JSON: where else its events are is unknown';
  }
  if (typeof meta !== 'object' || meta === null) return 'its sidecar is not an object';
  const { walSeg, replaces } = meta;
  if (!(walSeg === null || typeof walSeg === 'number') || !Array.isArray(replaces))
    return 'its sidecar does not say where it came from';
  if (typeof walSeg === 'number' && ctx.unsealed.includes(walSeg))
    return `its seal never committed: its events are replayed from WAL segment ${walSeg}`;
  const name = basename(q.to, '.parquet');
  const names = new Set(ctx.kept.map((b) => b.meta.name));
  if (replaces.some((n) => names.has(String(n)))) return 'the blocks it merged are still there';
  if (ctx.kept.some((b) => b.meta.replaces.includes(name))) return 'a merge holds its events';
  return undefined;
}

/** The block file's rows in the seal's shape (`_f` from `_extra`, else from the field columns), sealed again. */
async function readBack(
  c: Parameters<Parameters<Duck['with']>[0]>[0],
  file: string,
  target: BlockTarget,
): Promise<Block[]> {
  if (!existsSync(file)) throw new Error(`missing ${file}`);
  const cols = (await queryOn(c, `DESCRIBE SELECT * FROM read_parquet(${lit(file)})`)).rows.map((r) => String(r[0]));
  const missing = CORE.filter((n) => !cols.includes(n));
  if (missing.length > 0) throw new Error(`not a block: no column ${missing.join(', ')}`);
  const fields = cols.filter((n) => !CORE.includes(n) && n !== '_extra');
  const f = cols.includes('_extra')
    ? '_extra::JSON'
    : fields.length > 0
      ? `json_object(${fields.map((n) => `${lit(n)}, ${ident(n)}`).join(', ')})`
      : 'NULL::JSON';
  const rows = `(SELECT _time, env, "index", host, source, sourcetype, message, ${f} AS _f, epoch_us(_time) // ${DAY_US} AS _day FROM read_parquet(${lit(file)}))`;
  return writeBlocks(c, rows, target, { walSeg: null, replaces: [] });
}
