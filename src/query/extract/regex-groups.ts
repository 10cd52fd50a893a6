/**
 * Reading the groups of an RE2 regex from its text (which `(` opens a named, other capturing or
 * non-capturing group, where a group ends), for the log formats' per-field regexes and rex.
 */

/** Positions of a regex's characters that are syntax: outside character classes, not escaped. */
function* syntaxAt(re: string, from = 0): Generator<number> {
  let inClass = false;
  for (let i = from; i < re.length; i++) {
    const c = re[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else yield i;
  }
}

/** Each `(` of a regex (outside classes and escapes): where, its name if named, whether it captures. */
export function groupOpenings(re: string): { at: number; name?: string; capturing: boolean }[] {
  const out: { at: number; name?: string; capturing: boolean }[] = [];
  for (const i of syntaxAt(re)) {
    if (re[i] !== '(') continue;
    const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(re.slice(i));
    out.push({ at: i, name: named?.[1], capturing: named !== null || re[i + 1] !== '?' });
  }
  return out;
}

/** Names of the named groups of a regex, in order. */
export function groupNames(re: string): string[] {
  return groupOpenings(re).flatMap((g) => (g.name ? [g.name] : []));
}

/** Index just past the group opening at `open` (its `)` and any quantifier after it). */
function groupEnd(re: string, open: number): number {
  let depth = 0;
  for (const i of syntaxAt(re, open)) {
    if (re[i] === '(') depth++;
    else if (re[i] === ')' && --depth === 0) {
      const q = /^(?:[?*+]|\{\d+(?:,\d*)?\})\??/.exec(re.slice(i + 1));
      return i + 1 + (q ? q[0].length : 0);
    }
  }
  return re.length;
}

/** A regex with `field`'s group as its only capture (group 1), cut after the outermost group holding it when `cut`. */
export function singleCapture(re: string, field: string, cut: boolean): string {
  const opens = groupOpenings(re);
  const target = opens.find((g) => g.name === field);
  if (!target) throw new Error(`BUG: no group ${field} in ${re}`);
  // the outermost group enclosing the target: the first opening whose end lies past the target
  const outer = opens.find((g) => g.at <= target.at && groupEnd(re, g.at) > target.at) ?? target;
  const end = cut ? groupEnd(re, outer.at) : re.length;
  let out = '';
  let last = 0;
  for (const g of opens) {
    if (g.at >= end || !g.capturing) continue;
    out += re.slice(last, g.at) + (g === target ? '(' : '(?:');
    last = g.name ? re.indexOf('>', g.at) + 1 : g.at + 1;
  }
  return out + re.slice(last, end);
}

/** Named groups with their 1-based capture index, for regexp_extract. */
export function namedGroups(re: string): { name: string; index: number }[] {
  const out: { name: string; index: number }[] = [];
  let index = 0;
  for (const g of groupOpenings(re)) {
    if (!g.capturing) continue;
    index++;
    if (g.name) out.push({ name: g.name, index });
  }
  return out;
}
