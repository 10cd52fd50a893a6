import { describe, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { PhraseFilter, TermFilter } from '../search/filter-term.js';
import { parseSpan } from '../time-range.js';

/**
 * `name=value` options of a pipe (`window=5`, `current=false`, `maxspan=5m`), in any order. Each
 * pipe lists the names it takes; a name given twice is an error, so the canonical form (which
 * prints each once, in a fixed order) means the same as what was written.
 */
export class PipeOptions {
  private readonly given = new Set<string>();

  constructor(
    private readonly p: Parser,
    readonly names: readonly string[],
  ) {}

  /** The name of the option that comes next, its `=` consumed; undefined when none does. */
  next(): string | undefined {
    const t = this.p.peek('expr');
    const name = t.kind === 'ident' ? t.raw.toLowerCase() : '';
    if (!this.names.includes(name)) return undefined;
    if (this.given.has(name)) throw this.p.fail(`${describe(t)} is given twice`, t);
    this.given.add(name);
    this.p.next('expr');
    this.p.expectOp('=', 'expr');
    return name;
  }

  /** A whole number, 0 or more, after `name=`. */
  count(name: string, max: number): number {
    const t = this.p.next('expr');
    if (t.kind !== 'number' || !/^\d+$/.test(t.text))
      throw this.p.fail(`unexpected ${describe(t)}: missing a whole number after "${name}="`, t);
    if (Number(t.text) > max) throw this.p.fail(`${describe(t)} is too large for "${name}" (at most ${max})`, t);
    return Number(t.text);
  }

  /** `true`/`false` (or Splunk's `t`/`f`) after `name=`. */
  bool(name: string): boolean {
    const t = this.p.next('expr');
    const v = t.kind === 'ident' ? t.raw.toLowerCase() : '';
    if (v === 'true' || v === 't') return true;
    if (v === 'false' || v === 'f') return false;
    throw this.p.fail(`unexpected ${describe(t)}: missing true or false after "${name}="`, t);
  }

  /** A duration such as 30s, 5m, 1h or 1d after `name=`, as written. */
  span(name: string): string {
    const t = this.p.next('search');
    if (t.kind !== 'word' || parseSpan(t.text) === undefined)
      throw this.p.fail(`unexpected ${describe(t)}: missing a duration such as 30s, 5m, 1h or 1d after "${name}="`, t);
    return t.text;
  }

  /** A search term (`login`, `err*`) or "quoted phrase" after `name=`, matched against the message. */
  term(name: string): TermFilter | PhraseFilter {
    const t: Token = this.p.next('search');
    if (t.kind === 'string') {
      if (t.text === '') throw this.p.fail('missing text inside the phrase ""', t);
      return { kind: 'phrase', text: t.text };
    }
    if (t.kind !== 'word')
      throw this.p.fail(`unexpected ${describe(t)}: missing a search term or "phrase" after "${name}="`, t);
    return { kind: 'term', text: t.text };
  }
}

/** `field=<name>` when it comes next (rex, extract, kv: the text field to read instead of message). */
export function parseFieldOption(p: Parser): string | undefined {
  if (!p.acceptKeyword('field')) return undefined;
  p.expectOp('=', 'expr');
  return p.fieldName('a field after "field="');
}
