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
