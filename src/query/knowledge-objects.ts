import type { Query } from './parser.js';
import { visitTree } from './tree.js';

/**
 * Splunk's event types and tags are knowledge objects its configuration defines (`eventtype=
 * failed_login`, `tag=authentication`, `tag::host=prod`): fields Splunk adds at search time from
 * searches it stores. svc has no such definitions, so such a filter only compares a field of that
 * name the events themselves carry, which they rarely do: it would silently match nothing. The
 * answer says so (meta.warnings) rather than leave the user to guess.
 */
export function knowledgeObjectWarnings(q: Query): string[] {
  const names = new Set<string>();
  // every field filter anywhere in the query: search part, `| search`, subqueries
  visitTree(q, (n) => {
    if (n.kind !== 'field' || typeof n.field !== 'string' || typeof n.op !== 'string') return;
    const f = n.field.toLowerCase();
    if (f === 'eventtype' || f === 'tag' || f.startsWith('tag::')) names.add(n.field);
  });
  return [...names].map(
    (n) =>
      `"${n}" is a Splunk ${n.toLowerCase() === 'eventtype' ? 'event type' : 'tag'}, which svc does not define: the filter compares a field named "${n}" that the events carry themselves; write the search the ${n.toLowerCase() === 'eventtype' ? 'event type' : 'tag'} stands for instead`,
  );
}
