import { z } from 'zod';
import type { BlockMeta } from './block-meta.js';

/**
 * The shape a sidecar must have to be trusted at start-up. Sidecars are written atomically, so a
 * file that fails this was damaged on disk or edited by hand; the engine sets such a block aside
 * (quarantine) instead of refusing to start or answering from half a catalog entry.
 */
const int = z.number().int();
const sidecar = z
  .object({
    v: z.literal(1),
    name: z.string().min(1),
    env: z.string().min(1),
    index: z.string().min(1),
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    count: int.nonnegative(),
    minUs: int,
    maxUs: int,
    fields: z.array(z.object({ name: z.string(), type: z.enum(['VARCHAR', 'BIGINT', 'DOUBLE', 'BOOLEAN']), count: int.nonnegative(), promoted: z.boolean() })),
    hasExtra: z.boolean(),
    bloom: z.object({ m: int.positive(), b64: z.string() }),
    walSeg: int.nullable(),
    replaces: z.array(z.string()),
    bytes: int.nonnegative(),
    createdAt: z.number(),
    minuteCounts: z.object({ first: int, gaps: z.array(int), counts: z.array(int) }).optional(),
  })
  .passthrough();

/** Parses and checks a sidecar's text; throws with the first problem found. */
export function parseSidecar(text: string): BlockMeta {
  const r = sidecar.safeParse(JSON.parse(text));
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${i.path.join('.') || 'sidecar'}: ${i.message}`);
  }
  return r.data as BlockMeta;
}
