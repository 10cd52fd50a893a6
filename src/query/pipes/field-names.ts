import { quoteString } from '../lexer.js';

/**
 * Field names in pipe lists (`table`, `fields`, `dedup`, `top`/`rare`, `sort`, `stats … by`).
 * A name is written bare when it is letters, digits, `_ . @ - *` and JSON array steps `{}`, `{N}`
 * (not starting with a digit, `-` or `.`), else in double quotes: `stats count by "user name"`. `*` is a wildcard in `table` and
 * `fields` either way.
 */
export const BARE_LIST_NAME = /^[A-Za-z_@*](?:[A-Za-z0-9_.@*-]|\{\d*\})*$/;

/** One item of a field list: the name, a leading sign where the pipe allows one, a sort function. */
export interface ListItem {
  name: string;
  sign: '' | '+' | '-';
  /** `num` in `sort num(x)`, lowercased. */
  fn?: string;
}

/**
 * The canonical spelling of a list name: bare when it lexes back as one name, else quoted.
 * `by` is quoted because `top`/`rare` read a bare `by` as the keyword.
 */
export function printListName(name: string): string {
  return BARE_LIST_NAME.test(name) && name.toLowerCase() !== 'by' ? name : quoteString(name);
}

export const printListNames = (names: string[], sep = ', '): string => names.map(printListName).join(sep);
