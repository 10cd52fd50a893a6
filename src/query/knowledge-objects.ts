import type { Query } from './parser.js';

/**
 * Splunk's event types and tags are knowledge objects its configuration defines (`eventtype=
 * failed_login`, `tag=authentication`, `tag::host=prod`): fields Splunk adds at search time from
 * searches it stores. svc has no such definitions, so such a filter only compares a field of that
 * name the events themselves carry, which they rarely do: it would silently match nothing. The
 * answer says so (meta.warnings) rather than leave the user to guess.
 */
export function knowledgeObjectWarnings(q: Query): string[] {
  const names = new Set<string>();
  visit(q, (field) => {
    const f = field.toLowerCase();
    if (f === 'eventtype' || f === 'tag' || f.startsWith('tag::')) names.add(field);
  });
  return [...names].map(
    (n) =>
      `"${n}" is a Splunk ${n.toLowerCase() === 'eventtype' ? 'event type' : 'tag'}, which svc does not define: the filter compares a field named "${n}" that the events carry themselves; write the search the ${n.toLowerCase() === 'eventtype' ? 'event type' : 'tag'} stands for instead`,
  );
}

/** Calls `fn` with the field of every field filter anywhere in the query (search part, `| search`, subqueries). */
function visit(x: unknown, fn: (field: string) => void): void {
  if (Array.isArray(x)) {
    for (const i of x) visit(i, fn);
    return;
  }
  if (x === null || typeof x !== 'object') return;
  const o = x as Record<string, unknown>;
  if (o.kind === 'field' && typeof o.field === 'string' && typeof o.op === 'string') fn(o.field);
  for (const v of Object.values(o)) visit(v, fn);
}
