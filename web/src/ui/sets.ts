/** A copy of `s` with `v` added, or removed when it was there (React state wants a new set). */
export function toggled<T>(s: ReadonlySet<T>, v: T): Set<T> {
  const n = new Set(s);
  if (n.has(v)) n.delete(v);
  else n.add(v);
  return n;
}
