import type { FastifyInstance } from 'fastify';
import { SvcError } from '../errors/svc-error.js';

/**
 * svc's own `application/json` body parser for the JSON APIs (search, admin, MCP, ...). Fastify's
 * default refuses a `__proto__` or `constructor.prototype` key (prototype poisoning) but answers it
 * as "Body is not valid JSON", which names nothing. Here the body is parsed by JSON.parse (which
 * makes `__proto__` an own key and never touches a prototype) and such keys are refused by name.
 * Protocol plugins replace every parser in their own scope (http-kit/raw-body.ts), so ingest bodies
 * never come here: a `__proto__` key in an event is kept as a field there.
 */
export function useJsonBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

/** Parses an API body; throws SvcError invalid_json naming what is wrong. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new SvcError('invalid_json', 'cannot parse JSON body: the body is empty');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new SvcError('invalid_json', `cannot parse JSON body: ${(e as Error).message}`);
  }
  // fast path: most bodies hold neither name anywhere
  if (text.includes('__proto__') || text.includes('prototype')) refusePoisonedKeys(v);
  return v;
}

/** Walks `v` without recursion (a body may nest deeper than the stack) for keys that would poison a prototype. */
function refusePoisonedKeys(v: unknown): void {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null) continue;
    if (Array.isArray(x)) {
      for (const y of x) stack.push(y);
      continue;
    }
    const o = x as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(o, '__proto__'))
      throw new SvcError('invalid_json', 'cannot accept the key "__proto__" in a JSON body');
    if (
      Object.prototype.hasOwnProperty.call(o, 'constructor') &&
      typeof o.constructor === 'object' &&
      o.constructor !== null &&
      Object.prototype.hasOwnProperty.call(o.constructor, 'prototype')
    ) {
      throw new SvcError('invalid_json', 'cannot accept the key "constructor.prototype" in a JSON body');
    }
    for (const k in o) stack.push(o[k]);
  }
}
