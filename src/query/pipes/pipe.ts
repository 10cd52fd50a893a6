import type { ConstructDoc } from '../doc.js';
import type { Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { StageBuilder } from '../stages.js';
import type { SearchNode } from '../search/filter-logic.js';

/**
 * One pipe command of the language. Each `pipe-*.ts` exports its node type and one PipeDef that
 * parses it (after the command name), prints it back in canonical form, says which input fields it
 * reads, and adds its stage(s) to the SQL CTE chain.
 */
export interface PipeDef<N extends { kind: string }> {
  name: string;
  /** Its entry in the language reference (GET /api/language). */
  doc: ConstructDoc;
  parse(p: Parser, cmd: Token): N;
  print(n: N): string;
  /** Input fields it reads; '*' when it may read any (wildcards). */
  reads(n: N): string[] | '*';
  /** Names it creates or overwrites; 'all' when its output replaces the input (stats, table...). */
  writes(n: N): string[] | 'all';
  compile(n: N, b: StageBuilder): void;
  /**
   * True for a node that starts its query (`| inputlookup users`): it makes the rows instead of
   * reading the events, and the query prints as `| <pipe> …` without a search part.
   */
  generating?(n: N): boolean;
  /**
   * A generating node that filters the events itself (`| tstats count where <filter>`): its filter,
   * which parse() makes the query's search part (the query has none of its own).
   */
  searchPart?(n: N): SearchNode | undefined;
  /**
   * For a node whose output replaces the events but carries their other fields along (transaction:
   * each field's values over the transaction's events): the fields it makes itself. Later pipes
   * read any other field from the events (compile.ts readFields).
   */
  carries?(n: N): string[];
}
