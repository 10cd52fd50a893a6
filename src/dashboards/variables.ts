import { SvcError } from '../errors/svc-error.js';

/*
 * Variables in queries are written `$name$` (Splunk's token form; `$$` is one literal `$`). A value
 * never becomes query syntax: it is inserted as a double-quoted string literal of the query
 * language (`"` and `\` escaped), so `a" | delete` stays one value. A multi value becomes an IN
 * list after `field=` (`host IN ("a", "b")`), `NOT field IN (…)` after `field!=`, and `("a" OR
 * "b")` elsewhere. Inside a quoted string a value is inserted escaped, without quotes of its own.
 * Inside single quotes (field names of `where`) nothing is substituted.
 */

/** A variable's value in one run: a list for a multi variable. */
export type VarValue = string | string[];

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** One `$name$` in a query: where it starts in the text, and whether it sits inside a quoted string. */
export interface VarRef {
  name: string;
  position: number;
  quoted: boolean;
}

/** The query with its variables' values inserted, and for each of its characters the position in the template. */
export interface Substituted {
  text: string;
  /** origin[i]: the template position output character i came from (a value's start for inserted text). */
  origin: number[];
}

/** Every `$name$` in `template`, in order. */
export function references(template: string): VarRef[] {
  const refs: VarRef[] = [];
  scan(template, {
    text: (s) => void s,
    ref: (r) => void refs.push(r),
  });
  return refs;
}

/**
 * `template` with each `$name$` replaced by `values.get(name)`, quoted as above. A name without a
 * value throws `SvcError` invalid_input through `missing` (the caller names the panel).
 */
export function substitute(
  template: string,
  values: ReadonlyMap<string, VarValue>,
  missing: (ref: VarRef) => SvcError,
): Substituted {
  let text = '';
  const origin: number[] = [];
  const emit = (s: string, from: number, step: 0 | 1) => {
    text += s;
    for (let i = 0; i < s.length; i++) origin.push(from + i * step);
  };
  scan(template, {
    text: (s, at) => emit(s, at, 1),
    ref: (r) => {
      const v = values.get(r.name);
      if (v === undefined) throw missing(r);
      if (r.quoted) return emit(escape(Array.isArray(v) ? v.join(',') : v), r.position, 0);
      if (!Array.isArray(v)) return emit(quote(v), r.position, 0);
      // `field=$v$` → `field IN ("a", "b")`, `field!=$v$` → `NOT field IN (…)` (not after `>=`, `<=`, `==`)
      const cmp = /("(?:[^"\\]|\\.)*"|[^\s()|=!<>"]+)\s*(?<![<>=!])(!=|=)\s*$/.exec(text);
      if (cmp) {
        text = text.slice(0, cmp.index);
        origin.length = text.length;
        const list = `${cmp[1]} IN (${v.map(quote).join(', ')})`;
        return emit(cmp[2] === '!=' ? `NOT ${list}` : list, r.position, 0);
      }
      emit(v.length === 1 ? quote(v[0]) : `(${v.map(quote).join(' OR ')})`, r.position, 0);
    },
  });
  return { text, origin };
}

/** A string literal of the query language holding exactly `v`. */
export function quote(v: string): string {
  return `"${escape(v)}"`;
}

function escape(v: string): string {
  return v.replace(/[\\"]/g, (c) => `\\${c}`);
}

interface ScanSink {
  /** A run of the template copied as is, starting at template position `at`. */
  text(s: string, at: number): void;
  ref(r: VarRef): void;
}

/** Walks `t` once, telling `sink` of plain runs and of each reference (knowing double and single quotes). */
function scan(t: string, sink: ScanSink): void {
  let runStart = 0;
  let quote: '"' | "'" | undefined;
  const flush = (end: number) => {
    if (end > runStart) sink.text(t.slice(runStart, end), runStart);
  };
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (quote) {
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === quote) quote = undefined;
      else if (c === '$' && quote === '"') i = atDollar(t, i, true);
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '$') i = atDollar(t, i, false);
  }
  flush(t.length);

  // handles a `$` at i; answers the index of the last character consumed
  function atDollar(s: string, i: number, quoted: boolean): number {
    if (s[i + 1] === '$') {
      flush(i + 1); // keeps one `$`, drops the second
      runStart = i + 2;
      return i + 1;
    }
    const m = NAME.exec(s.slice(i + 1));
    if (!m || s[i + 1 + m[0].length] !== '$') return i;
    flush(i);
    sink.ref({ name: m[0], position: i, quoted });
    runStart = i + m[0].length + 2;
    return i + m[0].length + 1;
  }
}

/**
 * The first loop among query variables (a variable's query using a variable whose query uses …
 * the first), as the names along it (`['a', 'b', 'a']`), or undefined.
 */
export function findLoop(uses: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === 'done') return undefined;
    if (state.get(n) === 'open') return [...path.slice(path.indexOf(n)), n];
    state.set(n, 'open');
    path.push(n);
    for (const m of uses.get(n) ?? []) {
      const loop = visit(m);
      if (loop) return loop;
    }
    path.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of uses.keys()) {
    const loop = visit(n);
    if (loop) return loop;
  }
  return undefined;
}
