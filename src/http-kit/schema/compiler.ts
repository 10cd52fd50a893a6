import type { FastifyInstance, FastifySchemaCompiler, FastifyTypeProvider } from 'fastify';
import { z } from 'zod';
import { bug } from '../../errors/svc-error.js';
import { inputError, type HttpPart } from './input-error.js';
import type {} from './route-doc.js';

/**
 * Route schemas are zod schemas, declared once in the route's `schema` (querystring, params,
 * headers, body): Fastify checks the request against them before the handler runs (after the auth
 * hook), the handler receives what they parsed, and the OpenAPI document (openapi.ts) is made from
 * the same objects. Fastify's own JSON Schema validator (ajv) is not used: its messages would not
 * name the parameter the way svc's do, and it would need a second declaration of every route.
 */

/** Types `request.query`, `.params`, `.body` from the route's zod schemas (`app.withTypeProvider<ZodTypes>()`). */
export interface ZodTypes extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodTypeAny ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodTypeAny ? z.input<this['schema']> : unknown;
}

/** Schemas that describe what a route reads for the document only (described()). */
const DESCRIBED_ONLY = new WeakSet<z.ZodTypeAny>();

/**
 * Marks a schema as documentation of what a route reads, not checked at the edge: the
 * compatibility protocols (Elasticsearch, Splunk HEC, Loki, OTLP) take what their shippers send
 * and answer problems in their own shapes from their decoders, and request headers such as
 * Content-Encoding are read as sent (the first of a repeated one).
 */
export function described<T extends z.ZodTypeAny>(schema: T): T {
  DESCRIBED_ONLY.add(schema);
  return schema;
}

export function isDescribedOnly(schema: z.ZodTypeAny): boolean {
  return DESCRIBED_ONLY.has(schema);
}

/**
 * Fastify's validator compiler for zod schemas. A failure is svc's 400 invalid_input naming the
 * parameter (input-error.ts); each protocol's error handler answers it in its own shape. An absent
 * body or query string is checked as `{}`, so a required field is reported missing by name.
 */
export const zodCompiler: FastifySchemaCompiler<z.ZodTypeAny> = ({ schema, httpPart, method, url }) => {
  if (!(schema instanceof z.ZodType)) throw bug(`the ${httpPart} schema of ${method} ${url} is not a zod schema`);
  if (isDescribedOnly(schema)) return () => ({});
  const part = httpPart as HttpPart;
  return (data: unknown) => {
    const value = data ?? {};
    const r = schema.safeParse(value);
    if (!r.success) return { error: inputError(part, r.error.issues[0], value, schema) };
    // headers are checked, not replaced: the handler and the hooks read them as Node gave them
    return part === 'headers' ? {} : { value: r.data as unknown };
  };
};

/** Sets the zod compiler on the root instance; every plugin inherits it. */
export function useZodSchemas(app: FastifyInstance): void {
  app.setValidatorCompiler(zodCompiler);
}
