import type { RelationInfo } from '../../storage/types.js';

/**
 * Every event of the scanned relation, unfiltered: the no-match hint counts the events inside
 * the time range this way (the scan's own range does the filtering, run-hint.ts).
 */
export function countEventsSql(rel: RelationInfo): string {
  return `SELECT count(*) FROM ${rel.sql} AS e`;
}
