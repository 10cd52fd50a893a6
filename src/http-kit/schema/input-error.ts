import { ZodObject, ZodOptional, type z } from 'zod';
import { isSecretPath } from '../../errors/secret-names.js';
import { SvcError } from '../../errors/svc-error.js';

/** The part of a request a schema checks, as Fastify names it. */
export type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

/** How a message names a parameter of each part: `query parameter "limit"`. */
const PART_NAME: Record<Exclude<HttpPart, 'body'>, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/**
 * The 400 invalid_input for the first problem zod found in `value`, one request part: its message
 * names the field or parameter and quotes the bad value; details carry `field`.
 * A body keeps the admin API's form (`scopes: needs at least one scope (got [])`); a parameter reads
 * `query parameter "limit" must be an integer from 1 to 10000, not "abc"`.
 */
export function inputError(part: HttpPart, issue: z.ZodIssue, value: unknown, schema?: z.ZodTypeAny): SvcError {
  return part === 'body' ? bodyError(issue, value, schema) : paramError(PART_NAME[part], issue, value);
}

/** The fields an object schema knows, to say what an unknown one could have been. */
function knownFields(schema: z.ZodTypeAny | undefined): string {
  const inner: unknown = schema instanceof ZodOptional ? schema.unwrap() : schema;
  return inner instanceof ZodObject ? ` (want ${Object.keys(inner.shape as object).join(', ')})` : '';
}

function paramError(what: string, issue: z.ZodIssue, value: unknown): SvcError {
  if (issue.code === 'unrecognized_keys') {
    const field = issue.keys[0];
    return new SvcError('invalid_input', `unknown ${what} "${field}"`, { details: { field } });
  }
  const field = issue.path.join('.');
  const bad = at(value, issue.path);
  const message = issue.message === 'Required' ? 'is required' : lowerFirst(issue.message);
  // "must be …", "is empty …" read on from the name; zod's own messages follow a colon
  const sep = /^(must|is) /.test(message) ? ' ' : ': ';
  const not = bad === undefined || bad === '' ? '' : `, not ${quote(bad)}`;
  return new SvcError('invalid_input', `${what} "${field}"${sep}${message}${not}`, { details: { field } });
}

/**
 * A secret's value is never quoted (errors/secret-names.ts), nor a whole body that is not an
 * object (a password pasted as the body would be echoed whole): only what kind of value it was.
 */
function bodyError(issue: z.ZodIssue, value: unknown, schema: z.ZodTypeAny | undefined): SvcError {
  const field = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.join('.') || 'body';
  const bad = issue.code === 'unrecognized_keys' ? undefined : at(value, issue.path);
  const top = issue.code === 'unrecognized_keys' && issue.path.length === 0;
  let message = issue.code === 'unrecognized_keys' ? `unknown field${top ? knownFields(schema) : ''}` : issue.message;
  let got = bad === undefined ? '' : ` (got ${quote(bad)})`;
  if (issue.code !== 'unrecognized_keys' && (isSecretPath(issue.path) || issue.path.length === 0)) {
    // zod's own messages can quote the value too ("received 'x'")
    if (typeof bad === 'string' && bad.length > 0 && message.includes(bad)) message = 'is not valid';
    got = bad === undefined ? '' : ` (got ${kindOf(bad)})`;
  }
  return new SvcError('invalid_input', `${field}: ${message}${got}`, { details: { field } });
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `a ${v.length}-character string`;
  return `a ${typeof v}`;
}

function at(value: unknown, path: (string | number)[]): unknown {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

function quote(v: unknown): string {
  if (typeof v === 'string') return v.length > 40 ? `a ${v.length}-character string` : JSON.stringify(v);
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}
