import type { EncodedBatch, WriteBatch } from '../../events/writer.js';
import type { BuiltPart } from './part-build.js';

/**
 * The second inside of events/writer.ts's opaque EncodedBatch (the first is wal/batch-encode.ts's
 * WalBatch): events a decode worker wrote as parts (part-build.ts), each fsynced under a temporary
 * name, for the writer's commit to publish. Structured-cloneable.
 */
export interface PartBatch extends EncodedBatch {
  built: BuiltPart[];
}

export function isPartBatch(b: WriteBatch): b is PartBatch {
  return !Array.isArray(b) && Array.isArray((b as Partial<PartBatch>).built);
}

/** Stamps built parts as a batch (the brand is type-only: storage is the only maker of encoded batches). */
export function partBatch(built: BuiltPart[]): PartBatch {
  const count = built.reduce((n, p) => n + p.meta.count, 0);
  return { kind: 'encoded', count, built } as unknown as PartBatch;
}
