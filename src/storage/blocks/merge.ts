import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ident, lit } from '../duck.js';
import { bitsOfColumnType } from './field-types.js';
import { blockDir, publishBlock, type Block } from './block-files.js';
import type { BlockMeta } from './sidecar.js';
import { chooseFields, tokenFilterOf, type BlockTarget } from './block-writer.js';
import { encodeMinuteCounts, minuteCountsOf } from './minute-counts.js';

/** The inputs' fields, types widened by the field-type rule, counts summed. */
function unionFields(inputs: Block[]): { name: string; bits: number; count: number }[] {
  const acc = new Map<string, { name: string; bits: number; count: number }>();
  for (const b of inputs) {
    for (const f of b.meta.fields) {
      const a = acc.get(f.name) ?? { name: f.name, bits: 0, count: 0 };
      a.bits |= bitsOfColumnType(f.type);
      a.count += f.count;
      acc.set(f.name, a);
    }
  }
  return [...acc.values()];
}

/**
 * Merges blocks of one partition into one block, straight from their Parquet files (no temp
 * table, so memory stays bounded: DuckDB's sort spills to disk). Answers undefined, writing
 * nothing, when the merged block would need an `_extra` column (more fields than the cap, or
 * names colliding): such blocks stay as they are.
 */
export async function mergeIntoBlock(c: DuckDBConnection, inputs: Block[], target: BlockTarget): Promise<Block | undefined> {
  const fields = chooseFields(unionFields(inputs));
  if (fields.some((f) => !f.promoted) || inputs.some((b) => b.meta.hasExtra)) return undefined;
  const first = inputs[0].meta;
  const dir = blockDir(target.root, first.env, first.index, first.day);
  mkdirSync(dir, { recursive: true });
  const name = `${target.node}-${target.nextSeq()}`;
  const final = join(dir, `${name}.parquet`);
  const tmp = `${final}.tmp`;
  const src = `read_parquet([${inputs.map((b) => lit(b.path)).join(', ')}], union_by_name=true)`;
  const cols = ['_time', 'env', '"index"', 'host', 'source', 'sourcetype', 'message', ...fields.map((f) => `TRY_CAST(${ident(f.name)} AS ${f.type}) AS ${ident(f.name)}`)];
  await c.run(`COPY (SELECT ${cols.join(', ')} FROM ${src} ORDER BY _time) TO ${lit(tmp)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`);
  const bloom = await tokenFilterOf(c, src, 'true');
  // read back from the merged file rather than summed from the inputs: inputs from before
  // minute counts existed have none
  const minutes = await minuteCountsOf(c, tmp);
  const meta: BlockMeta = {
    v: 1,
    name,
    env: first.env,
    index: first.index,
    day: first.day,
    count: inputs.reduce((n, b) => n + b.meta.count, 0),
    minUs: Math.min(...inputs.map((b) => b.meta.minUs)),
    maxUs: Math.max(...inputs.map((b) => b.meta.maxUs)),
    fields,
    hasExtra: false,
    bloom: { m: bloom.m, b64: bloom.toBase64() },
    walSeg: Math.max(...inputs.map((b) => b.meta.walSeg ?? 0)),
    replaces: inputs.map((b) => b.meta.name),
    bytes: statSync(tmp).size,
    createdAt: Date.now(),
    minuteCounts: encodeMinuteCounts(minutes),
  };
  return publishBlock(tmp, final, meta);
}
