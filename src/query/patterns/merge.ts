import { WILDCARD, type Words } from './tokens.js';

/**
 * Merging shapes into templates, Drain-like. A shape is a group of messages that are the same
 * once their digits are masked (the SQL part); its words come from its samples (template.ts).
 *
 * 1. Shapes are taken most common first. A shape joins the template of an earlier shape with the
 *    same words, else the template of its bucket (same group, same number of words) whose words
 *    it matches best, when at least SIMILARITY of the positions that hold a word in either are
 *    equal; the positions that differ become `<*>`. Else it starts a template.
 * 2. A template is split again by the positions where its shapes hold only FEW_VALUES plain
 *    words (`Accepted`/`Failed`, `none`/`password`, `failure`/`failures`): such a position names
 *    different events, where a variable (a user name) takes many values.
 */

/** Share of compared positions that must be equal for a shape to join a template (measured on loghub: see docs). */
export const SIMILARITY = 0.7;
/** A position where the shapes hold at most this many distinct plain words splits its template (2 or 3 measured the same). */
export const FEW_VALUES = 2;

export interface Shape<T> {
  /** Shapes merge only within one group (the `by` values). */
  group: string;
  words: Words;
  count: number;
  data: T;
}

export interface Template<T> {
  group: string;
  words: string[];
  /** Most common first. */
  shapes: Shape<T>[];
  count: number;
}

/** Equal positions over positions where either side holds a word (both `<*>` is not compared); 0 when that cannot reach SIMILARITY. */
export function similarity(a: string[], b: string[]): number {
  let equal = 0;
  let compared = 0;
  // fast path: past this many differences the share of equal positions cannot reach SIMILARITY
  const hopeless = (1 - SIMILARITY) * a.length;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === WILDCARD && b[i] === WILDCARD) continue;
    compared++;
    if (a[i] === b[i]) equal++;
    else if (compared - equal > hopeless) return 0;
  }
  return compared === 0 ? 1 : equal / compared;
}

/** The words of `a` where `b` agrees, the two words' common frame around `<*>` where it does not. */
export function unify(a: string[], b: string[]): string[] {
  return a.map((w, i) => (w === b[i] ? w : unifyWord(w, b[i])));
}

const VALUE_CHAR = /[A-Za-z0-9<*>]/;

/**
 * Two different words as one with `<*>`, keeping what frames the value in both: `rhost=<*>`
 * from `rhost=10.0.0.1` and `rhost=example.com`, `[<*>]`, `/dev/<*>`. The frame ends at
 * punctuation, so `sda` and `sdb` give `<*>`, not `sd<*>`.
 */
export function unifyWord(a: string, b: string): string {
  const max = Math.min(a.length, b.length);
  let pre = 0;
  while (pre < max && a[pre] === b[pre]) pre++;
  while (pre > 0 && VALUE_CHAR.test(a[pre - 1])) pre--;
  let suf = 0;
  while (suf < max - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  while (suf > 0 && VALUE_CHAR.test(a[a.length - suf])) suf--;
  return `${a.slice(0, pre)}${WILDCARD}${a.slice(a.length - suf)}`;
}

function bucketKey(group: string, words: string[]): string {
  return `${group}\u0000${words.length}`;
}

const byCountThenWords = <T>(a: Shape<T>, b: Shape<T>): number => {
  if (a.count !== b.count) return b.count - a.count;
  const x = a.words.words.join(' ');
  const y = b.words.words.join(' ');
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Templates of the shapes; every shape lands in exactly one. */
export function mergeShapes<T>(shapes: Shape<T>[]): Template<T>[] {
  const buckets = new Map<string, Bucket<T>>();
  const out: Template<T>[] = [];
  for (const s of [...shapes].sort(byCountThenWords)) {
    const key = bucketKey(s.group, s.words.words);
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = { templates: [], byWords: new Map() }));
    const words = s.words.words.join('\u0000');
    let t = bucket.byWords.get(words) ?? closest(bucket.templates, s.words.words);
    if (t) {
      t.words = unify(t.words, s.words.words);
      t.shapes.push(s);
      t.count += s.count;
    } else {
      t = { group: s.group, words: [...s.words.words], shapes: [s], count: s.count };
      bucket.templates.push(t);
      out.push(t);
    }
    if (!bucket.byWords.has(words)) bucket.byWords.set(words, t);
  }
  return out.flatMap(splitByFewValues);
}

/** A bucket's templates, oldest (most common) first, and the template of each word sequence seen. */
interface Bucket<T> {
  templates: Template<T>[];
  byWords: Map<string, Template<T>>;
}

/**
 * Templates a shape is compared with: the most common of its bucket. Bounds the merge where
 * thousands of templates share a bucket (`patterns field=user` over distinct one-word names),
 * which would else compare every pair; measured buckets hold at most ~150 (bench/patterns.ts).
 */
export const COMPARED = 1000;

function closest<T>(bucket: Template<T>[], words: string[]): Template<T> | undefined {
  let best: Template<T> | undefined;
  let bestSim = SIMILARITY;
  for (let i = 0; i < bucket.length && i < COMPARED; i++) {
    const sim = similarity(bucket[i].words, words);
    // `>=` on the first candidate only: ties go to the older (more common) template
    if (sim > bestSim || (best === undefined && sim >= bestSim)) {
      best = bucket[i];
      bestSim = sim;
    }
  }
  return best;
}

const PLAIN_WORD = /^[A-Za-z]+[.:;,!?]?$/;

/** Positions where the shapes of `t` differ, over a few plain words only. */
function fewValuePositions<T>(t: Template<T>): number[] {
  const out: number[] = [];
  t.words.forEach((_, i) => {
    const values = new Set<string>();
    for (const s of t.shapes) {
      const v = s.words.words[i];
      if (!PLAIN_WORD.test(v)) return;
      values.add(v);
      if (values.size > FEW_VALUES) return;
    }
    if (values.size > 1) out.push(i);
  });
  return out;
}

function splitByFewValues<T>(t: Template<T>): Template<T>[] {
  const at = fewValuePositions(t);
  if (at.length === 0) return [t];
  const parts = new Map<string, Template<T>>();
  for (const s of t.shapes) {
    const key = at.map((i) => s.words.words[i]).join('\u0000');
    const part = parts.get(key);
    if (!part) parts.set(key, { group: t.group, words: [...s.words.words], shapes: [s], count: s.count });
    else {
      part.words = unify(part.words, s.words.words);
      part.shapes.push(s);
      part.count += s.count;
    }
  }
  return [...parts.values()];
}
