import { SvcError } from '../errors/svc-error.js';
import { analyze, compile, userFields } from '../query/compile.js';
import { parse, type Query } from '../query/parser.js';
import { conjuncts, searchFields } from '../query/search/filter-logic.js';
import { hasSubsearch } from '../query/subsearch.js';
import type { DeleteFilter } from '../storage/deleting.js';
import type { RelationInfo, ScanSpec } from '../storage/types.js';
import type { DeleteSpec } from './types.js';

// A delete's filter is a search's filter part, compiled by the query compiler itself: the rows a
// delete removes are the rows a search of the same query over the same range counts (the search
// stage's WHERE, with the message-extracted fields it reads), never a second matcher.

/** The query parsed, refused when it is more than a filter. */
export function filterQuery(text: string): Query {
  let q: Query;
  try {
    q = parse(text);
  } catch (e) {
    if (e instanceof SvcError) throw new SvcError('invalid_query', `query: ${e.message}`, { cause: e });
    throw e;
  }
  if (q.pipes.length > 0)
    throw new SvcError(
      'invalid_query',
      `query: a delete takes a filter only (search terms and field=value), not pipes: remove "| ${q.pipes[0].kind} …"`,
    );
  if (hasSubsearch(q))
    throw new SvcError('invalid_query', 'query: a delete cannot run a subsearch: write the filter out');
  if (conjuncts(q.search).some((c) => c.kind === 'time'))
    throw new SvcError(
      'invalid_query',
      'query: earliest= and latest= are not taken here: give the range as from and to',
    );
  return q;
}

/** The storage side's filter: scope, range, and the compiled search stage selecting the rows' `_drow`. */
export function deleteFilter(spec: DeleteSpec, nowMs: number): DeleteFilter {
  const q = filterQuery(spec.query);
  return {
    envs: [spec.env],
    indexes: spec.index === null ? null : [spec.index],
    fromUs: spec.fromUs,
    toUs: spec.toUs,
    fields: userFields(searchFields(q.search)),
    doomedRows: (rel) => {
      const c = compile(q, rel, { nowMs, limit: 0, searchOnly: true });
      return `${c.with} SELECT _drow FROM ${c.last}`;
    },
  };
}

/** A search's scan of the delete's scope and range, and the statement counting its matches (a dry run). */
export function countPlan(
  spec: DeleteSpec,
  nowMs: number,
): { scan: ScanSpec; countSql: (rel: RelationInfo) => string } {
  const q = filterQuery(spec.query);
  const a = analyze(q, nowMs);
  return {
    scan: {
      envs: [spec.env],
      indexes: spec.index === null ? null : [spec.index],
      fromUs: spec.fromUs,
      toUs: spec.toUs,
      requiredTokens: a.requiredTokens,
      fieldTokens: a.fieldTokens,
      fields: userFields(searchFields(q.search)),
    },
    countSql: (rel) => compile(q, rel, { nowMs, limit: 0, searchOnly: true }).countSql,
  };
}
