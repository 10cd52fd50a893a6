/**
 * Whole-token semantics shared by the compiler and the store's token filter.
 * A token is a maximal run of ASCII letters, digits and `_` in the lowercased message; a term
 * matches when it occurs with no such character directly before or after it.
 */
const WORD_RUN = /[a-z0-9_]+/g;

export function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[a-z0-9_]/i.test(c);
}

/** Tokens of a lowercased text, as the store's token filter should index them. */
export function textTokens(lowered: string): string[] {
  return lowered.match(WORD_RUN) ?? [];
}

/**
 * The tokens any message matching `pattern` must contain in full: the word runs of each literal
 * piece (pieces are split at `*`), keeping only runs not glued to a `*`.
 */
export function requiredTokensOf(pattern: string): string[] {
  const out: string[] = [];
  const pieces = pattern.toLowerCase().split('*');
  pieces.forEach((piece, i) => {
    for (const m of piece.matchAll(WORD_RUN)) {
      const start = m.index;
      const end = start + m[0].length;
      if (start === 0 && i > 0) continue; // glued to a wildcard before it
      if (end === piece.length && i < pieces.length - 1) continue; // glued to a wildcard after it
      out.push(m[0]);
    }
  });
  return out;
}
