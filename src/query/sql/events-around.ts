import type { RelationInfo } from '../../storage/types.js';
import { baseSchema, selectList } from '../compile.js';
import { ident, str } from '../sql.js';

/** Ties on time are ordered by these, so that the same request always gives the same answer. */
const TIEBREAK = ['host', 'source', 'sourcetype', 'message'].map((c) => `e.${ident(c)}`);

/** Which events of one env and index the event context reads (context.ts). */
export interface AroundQuery {
  /** The anchor time, epoch µs (as stored). */
  t: number;
  /** Exactly at `t` (oldest first), newest `before` it, or oldest `after` it. */
  side: 'at' | 'before' | 'after';
  /** Only events with this host / source; an event without one shows and matches ''. */
  host?: string;
  source?: string;
  limit: number;
}

/** Whole events of the relation on one side of the anchor, ordered by time from it outwards. */
export function eventsAroundSql(rel: RelationInfo, q: AroundQuery): string {
  const columns = [...baseSchema(rel)].map(([name, type]) => ({ name, type }));
  const dir = q.side === 'before' ? 'DESC' : 'ASC';
  // e._time: the stored time, not the text the SELECT list makes of it
  const order = ['e._time', ...TIEBREAK].map((c) => `${c} ${dir}`).join(', ');
  return `SELECT ${selectList(columns)} FROM ${rel.sql} AS e WHERE ${aroundWhere(q).join(' AND ')} ORDER BY ${order} LIMIT ${q.limit}`;
}

function aroundWhere(q: AroundQuery): string[] {
  const at = `make_timestamp(${q.t}::BIGINT)`;
  const cmp = q.side === 'at' ? `_time = ${at}` : q.side === 'before' ? `_time < ${at}` : `_time > ${at}`;
  return [
    cmp,
    ...(q.host !== undefined ? [`coalesce(host, '') = ${str(q.host)}`] : []),
    ...(q.source !== undefined ? [`coalesce(source, '') = ${str(q.source)}`] : []),
  ];
}
