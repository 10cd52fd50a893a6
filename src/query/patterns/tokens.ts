/**
 * How `patterns` reads one message: words between separators, each word with its obviously
 * variable parts (numbers, hex ids, IPs, UUIDs, times, month and day names) replaced by `<*>`.
 * Two messages of one template then differ only in the words the merge (merge.ts) turns into
 * `<*>`: user names, host names, file names.
 */

export const WILDCARD = '<*>';

/** A message cut into words: `seps[i]` comes before `words[i]`, `seps[words.length]` ends it. */
export interface Words {
  words: string[];
  seps: string[];
}

/**
 * Separators: white space, and JSON's quotes and braces so that a JSON line is words too. Not
 * `=`, `,`, `[`, `(`: cutting `uid=0` or `[preauth]` into more words made templates worse on the
 * loghub data sets (more words in common between unrelated messages), as did a first word that
 * must match.
 */
const SEPARATORS = /[\s"{}]+/g;

/** Beyond this many words, the rest of a message is one last word (a stack trace, a long JSON). */
export const MAX_WORDS = 120;

/**
 * A run of hex digits holding a digit (numbers, hex ids, IPv6 groups), not touching a letter or
 * digit: `22`, `-5`, `0x1f`, `3fa9c1d2`, the parts of `10.0.0.1` and of a UUID; not `ssh2`,
 * `x86`, `4p1`, whose digits belong to a name.
 */
const NUMBERISH = /(?<![A-Za-z0-9])[-+]?(?:0x)?[0-9a-fA-F]*[0-9][0-9a-fA-F]*(?![A-Za-z0-9])/;
/** An ISO 8601 time, whose `T` and zone letters would keep its parts apart: `2024-05-01T10:00:00.123Z`. */
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/;
/** `<*>` pieces joined by punctuation are one value: `<*>.<*>.<*>.<*>:<*>` is an address. */
const JOINED = /<\*>(?:[.:/_@,+-]*<\*>)+/g;
const DATE_WORD = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)$/;
/** A month name inside a word with digits is part of a date: `[17/May/2015:10:05:03`. */
const MONTH_IN_DATE = /(?<![A-Za-z])(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(?![A-Za-z])/;

/** All three in one pass, an ISO time before the numbers in it. */
const VARIABLE = new RegExp(`${ISO_TIME.source}|${MONTH_IN_DATE.source}|${NUMBERISH.source}`, 'g');

/** One word with its variable parts as `<*>`. */
export function maskWord(word: string): string {
  if (DATE_WORD.test(word)) return WILDCARD;
  // fast path: most words hold no digit, and only a digit makes a value here
  if (!/[0-9]/.test(word)) return word;
  return word.replace(VARIABLE, WILDCARD).replace(JOINED, WILDCARD);
}

/** Splits a message into words and separators (words not masked). */
export function splitWords(text: string): Words {
  const words: string[] = [];
  const seps: string[] = [];
  let last = 0;
  for (const m of text.matchAll(SEPARATORS)) {
    if (m.index === 0) {
      seps.push(m[0]);
      last = m[0].length;
      continue;
    }
    if (seps.length === 0) seps.push('');
    if (words.length === MAX_WORDS - 1) break;
    words.push(text.slice(last, m.index));
    seps.push(m[0]);
    last = m.index + m[0].length;
  }
  if (seps.length === 0) seps.push('');
  if (last < text.length) {
    words.push(text.slice(last));
    seps.push('');
  }
  return { words, seps };
}

/**
 * A message's words with variable parts masked. Repeats of one masked word collapse into one
 * (`10 06:55:46` → `<*>`, a list of block ids → `blk_<*>`), so lists and dates of different
 * lengths read as the same template.
 */
export function maskedWords(text: string): Words {
  const raw = splitWords(text);
  const words: string[] = [];
  const seps: string[] = [raw.seps[0]];
  raw.words.forEach((w, i) => {
    const m = maskWord(w);
    // the run keeps the separator after its last word: `200 1234 "-"` → `<*> "-"`
    if (words.length > 0 && m === words[words.length - 1] && m.includes(WILDCARD))
      seps[seps.length - 1] = raw.seps[i + 1];
    else {
      words.push(m);
      seps.push(raw.seps[i + 1]);
    }
  });
  return { words, seps };
}

/** The text of words and separators. */
export function joinWords(w: Words): string {
  let out = w.seps[0] ?? '';
  w.words.forEach((x, i) => (out += x + (w.seps[i + 1] ?? '')));
  return out;
}
