import type { DuckDBConnection } from '@duckdb/node-api';
import { ident, lit } from '../sql-quote.js';
import { bitsOfColumnType } from './field-types.js';
import type { Block } from './block-files.js';
import { chooseFields, writeBlockFile, type BlockTarget } from './block-writer.js';

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
export async function mergeIntoBlock(
  c: DuckDBConnection,
  inputs: Block[],
  target: BlockTarget,
): Promise<Block | undefined> {
  const fields = chooseFields(unionFields(inputs));
  if (fields.some((f) => !f.promoted) || inputs.some((b) => b.meta.hasExtra)) return undefined;
  const first = inputs[0].meta;
  const src = `read_parquet([${inputs.map((b) => lit(b.path)).join(', ')}], union_by_name=true)`;
  const cols = [
    '_time',
    'env',
    '"index"',
    'host',
    'source',
    'sourcetype',
    'message',
    ...fields.map((f) => `TRY_CAST(${ident(f.name)} AS ${f.type}) AS ${ident(f.name)}`),
  ];
  return writeBlockFile(c, target, {
    env: first.env,
    index: first.index,
    day: first.day,
    fields,
    hasExtra: false,
    select: (orderBy) => `SELECT ${cols.join(', ')} FROM ${src} ORDER BY ${orderBy}`,
    rows: { from: src, count: inputs.reduce((n, b) => n + b.meta.count, 0) },
    // the inputs' sidecars describe their files, so their sums describe the merged one
    extent: async () => ({
      count: inputs.reduce((n, b) => n + b.meta.count, 0),
      minUs: Math.min(...inputs.map((b) => b.meta.minUs)),
      maxUs: Math.max(...inputs.map((b) => b.meta.maxUs)),
    }),
    origin: { walSeg: Math.max(...inputs.map((b) => b.meta.walSeg ?? 0)), replaces: inputs.map((b) => b.meta.name) },
  });
}
