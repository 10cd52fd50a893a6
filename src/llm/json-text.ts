import { z } from 'zod';

/**
 * A string of `min` to `max` characters as JSON Schema counts them: Unicode code points, which is
 * what a model held to the schema (llama.cpp's grammar) obeys. zod's `.max` counts UTF-16 units,
 * so a verdict with an emoji or another character past U+FFFF could obey the schema and still be
 * refused by the check of the same schema.
 */
export function schemaText(max: number, min = 0): z.ZodType<string> {
  return z
    .string()
    .min(min)
    .refine((s) => [...s].length <= max, { message: `String must contain at most ${max} character(s)` });
}
