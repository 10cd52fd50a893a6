/**
 * Generic walks over a parsed query's plain-object tree. Pipes, search expressions and subqueries
 * are nested objects and arrays, so one walk reaches every node without knowing each pipe's shape:
 * a new pipe that holds a search expression or a subquery needs no code here.
 */

/** What a visitor answers for a node: `skip` leaves its children out. */
export type Visit = void | 'skip';

/** Calls `fn` on every object node, parents before children, copying nothing. */
export function visitTree(x: unknown, fn: (node: Record<string, unknown>) => Visit): void {
  if (Array.isArray(x)) {
    for (const i of x) visitTree(i, fn);
    return;
  }
  if (x === null || typeof x !== 'object') return;
  const o = x as Record<string, unknown>;
  if (fn(o) === 'skip') return;
  for (const v of Object.values(o)) visitTree(v, fn);
}

/**
 * The tree with each node `pick` accepts replaced by `fn`'s answer (its children not visited),
 * copying the objects on the way so the original stays as it was.
 */
export function mapTree<T, N>(
  x: T,
  pick: (node: Record<string, unknown>) => node is N & Record<string, unknown>,
  fn: (n: N) => unknown,
): T {
  if (Array.isArray(x)) return x.map((i: unknown) => mapTree(i, pick, fn)) as T;
  if (x === null || typeof x !== 'object') return x;
  const o = x as Record<string, unknown>;
  if (pick(o)) return fn(o) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = mapTree(v, pick, fn);
  return out as T;
}
