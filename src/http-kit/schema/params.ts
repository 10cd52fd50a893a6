import { z } from 'zod';

/**
 * Query-string parameters as the search and ingest routes read them: given once (a repeated one,
 * `?env=a&env=b`, arrives as a list and is refused rather than guessed), and an empty one
 * (`?limit=`) is the same as leaving it out.
 */
const emptyIsAbsent = (v: unknown) => (v === '' ? undefined : v);

/** What a repeated (or non-string) query parameter is told. */
export const GIVEN_ONCE = 'must be given once, as a string';

/** An optional string parameter given at most once. */
export function onceString(description?: string) {
  const s = z.string({ invalid_type_error: GIVEN_ONCE });
  return z.preprocess(emptyIsAbsent, (description ? s.describe(description) : s).optional());
}

/**
 * An optional integer from `min` to `max`: a JSON number, or digits in a query string. Anything
 * else is refused with the range in the message (`must be an integer from 1 to 10000`).
 */
export function intParam(min: number, max: number, description?: string) {
  const want = `must be an integer from ${min} to ${max}`;
  const n = z.number({ invalid_type_error: want }).int(want).min(min, want).max(max, want);
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : emptyIsAbsent(v)),
    (description ? n.describe(description) : n).optional(),
  );
}
