import { createHash } from 'node:crypto';

/**
 * The token rule shared by the block token filter and the query layer's `requiredTokens`:
 * a message is lowercased and split on every character outside [a-z0-9_]. DuckDB computes the
 * same split at seal time (TOKEN_SPLIT_SQL), so both sides must change together.
 */
export const TOKEN_SPLIT_REGEX = /[^a-z0-9_]+/;
export const TOKEN_SPLIT_SQL = "'[^a-z0-9_]+'";

/** The pieces of a (query) token under the block token rule, e.g. "10.0.0.1" → ["10","0","0","1"]. */
export function tokenPieces(token: string): string[] {
  return token
    .toLowerCase()
    .split(TOKEN_SPLIT_REGEX)
    .filter((t) => t.length > 0);
}

/**
 * 64-bit token hash: the first 8 bytes of MD5, little-endian — exactly DuckDB's
 * `md5_number_upper(token)`, so the filter can be built inside DuckDB and probed from JS.
 */
export function tokenHash(token: string): bigint {
  return createHash('md5').update(token, 'utf8').digest().readBigUInt64LE(0);
}

/** SQL expression giving the hash for a token expression (see tokenHash). */
export function tokenHashSql(expr: string): string {
  return `md5_number_upper(${expr})`;
}

/**
 * How a block's filters hash tokens (sidecar `granules.hash`): `md5`, DuckDB's md5_number_upper
 * (filters DuckDB builds: seals from the WAL, merges); `t2`, two 32-bit multiplicative hashes
 * computed in JS while a decode worker writes a part (token-scan.ts), without making a string
 * per token. A block's probes use the hash its filters were built with.
 */
export type TokenHashKind = 'md5' | 't2';

/** Seeds and steps of the `t2` hash; token-scan.ts inlines the same steps in its loop. */
export const T2_SEED_LO = 0x811c9dc5;
export const T2_SEED_HI = 0x9747b28c;
export const T2_MUL_LO = 0x01000193;
export const T2_MUL_HI = 0x5bd1e995;

/** The murmur3 finaliser: every input bit reaches every output bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The `t2` hash of one token (lowercase, [a-z0-9_] only) as the Bloom's two halves [lo, hi | 1]. */
export function t2Halves(token: string): [number, number] {
  let lo = T2_SEED_LO;
  let hi = T2_SEED_HI;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    lo = Math.imul(lo ^ c, T2_MUL_LO);
    hi = Math.imul(hi ^ c, T2_MUL_HI);
    hi ^= hi >>> 15;
  }
  return [fmix32(lo ^ token.length), (fmix32(hi + token.length) | 1) >>> 0];
}
