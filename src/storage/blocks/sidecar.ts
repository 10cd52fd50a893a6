import type { TokenHashKind } from './tokens.js';
import { z } from 'zod';
import type { ColumnType } from './field-types.js';
import type { MinuteCountsJson } from './minute-counts.js';
import type { ValueCountsJson } from './value-counts.js';

// The sidecar's format and the check it must pass live together, apart from the code that loads
// and publishes blocks (block-files.ts): that code needs both, and neither needs it.

/** A field of a block: promoted fields are Parquet columns, the others live in the `_extra` JSON column. */
export interface BlockField {
  name: string;
  type: ColumnType;
  /** Events in the block carrying the field. */
  count: number;
  promoted: boolean;
}

/**
 * The sidecar `<node>-<seq>.json` beside every block `<node>-<seq>.parquet`. A block exists only
 * when its sidecar does (written last); a Parquet file without one is debris of a crash.
 */
export interface BlockMeta {
  v: 1;
  /** `<node>-<seq>` */
  name: string;
  env: string;
  index: string;
  /** yyyy-mm-dd of event time (UTC) */
  day: string;
  count: number;
  minUs: number;
  maxUs: number;
  fields: BlockField[];
  /** True when some fields are not promoted and the block has an `_extra` column. */
  hasExtra: boolean;
  /**
   * Token filter over lowercased message tokens (tokens.ts), of sidecars written before granules:
   * a block has one or the other.
   */
  bloom?: { m: number; b64: string };
  /**
   * One token filter per `rows` consecutive rows of the file (token-filters.ts): bits `m[i]`,
   * bytes `b64[i]`. A token absent from every granule is absent from the block.
   */
  granules?: {
    rows: number;
    m: number[];
    b64: string[];
    /** The token hash the filters were built with (tokens.ts); absent: `md5`. */
    hash?: TokenHashKind;
  };
  /** WAL segment a sealed block came from; its seal is committed when the segment is gone or marked. */
  walSeg: number | null;
  /** Blocks a merge replaced: if still present at start-up they are deleted (the merge committed). */
  replaces: string[];
  bytes: number;
  createdAt: number;
  /**
   * Events per UTC minute (minute-counts.ts), so unfiltered counts per time bucket need no rows.
   * Absent in sidecars written before it existed: such blocks take the row path.
   */
  minuteCounts?: MinuteCountsJson;
  /**
   * Events per value of host, source and sourcetype (value-counts.ts), for `stats count by host`
   * without reading the block; a column with more distinct values than VALUE_COUNTS_MAX is left out.
   */
  valueCounts?: ValueCountsJson;
}

/**
 * The shape a sidecar must have to be trusted at start-up. Sidecars are written atomically, so a
 * file that fails this was damaged on disk or edited by hand; the engine sets such a block aside
 * (quarantine) instead of refusing to start or answering from half a catalog entry.
 */
const int = z.number().int();
const usTime = z.union([
  int,
  z
    .string()
    .regex(/^-?\d{1,20}$/)
    .transform(Number),
]);
const sidecar = z
  .object({
    v: z.literal(1),
    name: z.string().min(1),
    env: z.string().min(1),
    index: z.string().min(1),
    // years beyond 0..9999 print with a sign and six digits; older svc cut them to `+010000-01`
    day: z.string().regex(/^(\d{4}-\d{2}-\d{2}|[+-]\d{6}-\d{2}(-\d{2})?)$/),
    count: int.nonnegative(),
    // an older svc wrote a time past year 2255 (beyond 2^53 µs) as its decimal text
    minUs: usTime,
    maxUs: usTime,
    fields: z.array(
      z.object({
        name: z.string(),
        type: z.enum(['VARCHAR', 'BIGINT', 'DOUBLE', 'BOOLEAN']),
        count: int.nonnegative(),
        promoted: z.boolean(),
      }),
    ),
    hasExtra: z.boolean(),
    bloom: z.object({ m: int.positive(), b64: z.string() }).optional(),
    granules: z
      .object({
        rows: int.positive(),
        m: z.array(int.positive()),
        b64: z.array(z.string()),
        hash: z.enum(['md5', 't2']).optional(),
      })
      .refine((g) => g.m.length === g.b64.length, 'm and b64 differ in length')
      .optional(),
    walSeg: int.nullable(),
    replaces: z.array(z.string()),
    bytes: int.nonnegative(),
    createdAt: z.number(),
    minuteCounts: z.object({ first: int, gaps: z.array(int), counts: z.array(int) }).optional(),
    valueCounts: z
      .record(
        z.enum(['host', 'source', 'sourcetype']),
        z
          .object({ v: z.array(z.string()), n: z.array(int.nonnegative()) })
          .refine((c) => c.v.length === c.n.length, 'v and n differ in length'),
      )
      .optional(),
  })
  .passthrough()
  .refine((m) => m.bloom !== undefined || m.granules !== undefined, 'no token filter (bloom or granules)');

/** Parses and checks a sidecar's text; throws with the first problem found. */
export function parseSidecar(text: string): BlockMeta {
  const r = sidecar.safeParse(JSON.parse(text));
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${i.path.join('.') || 'sidecar'}: ${i.message}`);
  }
  return r.data;
}
