import type { FieldTokens } from '../../storage/types.js';
import { conjuncts, type SearchNode } from '../search/filter-logic.js';
import { requiredTokensOf } from '../search/tokens.js';
import { toStr } from '../expr/coerce.js';
import { ident } from '../sql.js';
import type { StageBuilder } from '../stages.js';
import { isDateField } from './date-fields.js';
import { isExtractable, storedAliases, valueSpelledInText } from './auto-fields.js';

/**
 * The stage after the search that gives each field the query reads its value: the stored one, else
 * the one found in the message (auto-fields.ts). A stored column keeps its type (a text found for a
 * BIGINT field is cast, NULL when it is not a number); a field no event stores becomes text.
 */
export function pushExtracted(
  b: StageBuilder,
  values: ReadonlyMap<string, string>,
  storedTypes?: Readonly<Record<string, string>>,
): void {
  b.setColumns(
    [...values].map(([name, text]) => {
      const prev = b.schema.get(name);
      if (prev === undefined) return { name, sql: text, type: 'any' };
      const type = storedTypes?.[name] ?? 'VARCHAR';
      return {
        name,
        sql: `coalesce(${ident(name)}, ${type === 'VARCHAR' ? text : `TRY_CAST(${text} AS ${type})`})`,
        type: prev,
      };
    }),
  );
}

/**
 * For each `field=value` AND-ed at the top of the search (a user field, a value written the same
 * way in the text): the value's tokens, which the message of a matching event that stores none of
 * the fields must hold, since its value was found in that message.
 */
export function extractedFieldTokens(search: SearchNode): FieldTokens[] {
  const out: FieldTokens[] = [];
  for (const c of conjuncts(search)) {
    if (c.kind !== 'field' || c.op !== '=' || !isExtractable(c.field) || !valueSpelledInText(c.value)) continue;
    if (isDateField(c.field)) continue; // from the time, not the text: its words need not be there
    const tokens = requiredTokensOf(c.value);
    if (tokens.length > 0) out.push({ fields: [c.field, ...storedAliases(c.field)], tokens: [...new Set(tokens)] });
  }
  return out;
}

/**
 * A stage setting fields from values found in a text by an explicit pipe (spath, kv): where a value
 * is found it wins, else the field keeps the value it had (like rex). `list` values (spath `{}`)
 * replace the field whole.
 */
export function pushFound(b: StageBuilder, found: { name: string; sql: string; list?: boolean }[]): void {
  b.setColumns(
    found.map((f) => ({
      name: f.name,
      sql: b.schema.has(f.name) && !f.list ? `coalesce(${f.sql}, ${toStr(b.col(f.name))})` : f.sql,
      type: f.list ? 'list' : 'any',
    })),
  );
}
