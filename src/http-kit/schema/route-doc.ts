/**
 * What a route's `schema` says for the OpenAPI document besides its zod schemas (openapi.ts reads
 * them; Fastify ignores them). Names follow @fastify/swagger's where it has one.
 */
export interface RouteDoc {
  /** One line: what the route does. */
  summary?: string;
  /** The group in the reference (search, ingest, admin, ...). */
  tags?: string[];
  /** A body taken as raw bytes in these content types (ingest, a lookup's CSV); described, decoded by the route. */
  consumes?: string[];
  /** Content types of the successful answer; application/json when not said. */
  produces?: string[];
  /** The successful status when not 200 (201 created, 204 no content, 302/303 redirects). */
  success?: number;
  /** Error statuses beyond those the access class and schemas imply (409 conflict, 429, 503, ...). */
  errors?: number[];
  /**
   * A compatibility protocol route: it authenticates an ingest token itself with these schemes
   * (names of components.securitySchemes) and answers errors in the protocol's own shape.
   */
  protocol?: { name: string; auth?: string[] };
}

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifySchema extends RouteDoc {}
}
