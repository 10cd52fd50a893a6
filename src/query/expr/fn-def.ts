import type { ConstructDoc } from '../doc.js';
import type { ColRef, ColType } from '../schema.js';

/** A function of `where` and `eval`: turns compiled arguments into SQL and says its type. */
export interface FnDef {
  min: number;
  max: number;
  type: ColType;
  sql(args: ColRef[], nowMs: number): string;
  /** The result type when it depends on the arguments' (functions returning one of them). */
  typeOf?(args: ColRef[]): ColType;
  /** Its entry in the language reference (GET /api/language). */
  doc: ConstructDoc;
}

/**
 * A function whose result depends on values that can be out of its domain (`ln(0)`, `sqrt(-1)`, a
 * time past year 9999): such a row gets null, as in Splunk, instead of failing the whole search.
 * DuckDB's try() catches errors per row; errors from constants (an invalid regex or format) are
 * raised before any row and reach the caller as a 400 (query/run-errors.ts).
 */
export const tried = (d: FnDef): FnDef => ({ ...d, sql: (a, now) => `try(${d.sql(a, now)})` });
