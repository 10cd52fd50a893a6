/**
 * How the language reference (GET /api/language: the editor's autocomplete, tools) shows one
 * construct. Every pipe, aggregation and function carries one beside its definition;
 * test/query/language.test.ts fails when one is missing and parses every example.
 */
export interface ConstructDoc {
  /** The construct's form, e.g. `stats <agg>[, <agg>…] [by <field>, …]`. */
  syntax: string;
  /** One sentence in a Splunk user's words. */
  description: string;
  /** A whole query using it, in canonical form (printing it parsed gives it back). */
  example: string;
}

export const doc = (syntax: string, description: string, example: string): ConstructDoc => ({
  syntax,
  description,
  example,
});
