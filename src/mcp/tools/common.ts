import { z } from 'zod';

/** Input fields shared by the searching tools, each described for the model. */

export const queryField = (what = 'Search query') =>
  z
    .string()
    .max(10_000)
    .default('*')
    .describe(`${what} in svc's query language (see the tool description). "*" matches every event.`);

export const envField = z
  .string()
  .max(200)
  .optional()
  .describe('Environment to search. Default "default"; "*" searches every environment you may read.');

export const indexField = z
  .string()
  .max(200)
  .optional()
  .describe('Index within the environment. Omit to search all indexes.');

export const fromField = z
  .string()
  .max(64)
  .optional()
  .describe(
    'Start of the time range: RFC 3339 (2026-01-31T12:00:00Z) or relative (-15m, -1h, -7d). Omit for all time.',
  );

export const toField = z
  .string()
  .max(64)
  .optional()
  .describe('End of the time range (exclusive): RFC 3339, relative, or "now". Omit for up to now.');

export const rangeShape = { env: envField, index: indexField, from: fromField, to: toField };

export const SEARCH_DEFAULT_LIMIT = 50;
export const SEARCH_MAX_LIMIT = 1000;

/** How many events or rows a searching tool answers; `what` says so to the model, the bounds follow. */
export const limitField = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(SEARCH_MAX_LIMIT)
    .default(SEARCH_DEFAULT_LIMIT)
    .describe(`${what} (default ${SEARCH_DEFAULT_LIMIT}, max ${SEARCH_MAX_LIMIT}).`);

/** Drops undefined members so the search request carries only what the caller gave. */
export function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as T;
}
