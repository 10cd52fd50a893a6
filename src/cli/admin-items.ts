import type { Command } from 'commander';
import { note, write, type CliContext } from './context.js';
import { CliError } from './errors.js';
import { cellText, renderTable } from './format.js';
import { choice } from './options.js';

/**
 * The list / disable / enable / delete commands shared by the admin resources (API keys, ingest
 * tokens, users, environments), over their /api/admin/* routes (docs/admin-api.md). An item is
 * named by its id or its name.
 */

export type Item = Record<string, unknown>;

export interface Resource {
  /** `API key`: for messages. */
  noun: string;
  /** `/api/admin/api-keys` */
  path: string;
  /** The list answer's field: `apiKeys`. */
  listField: string;
  /** The field that names an item besides its id (`name`, `username`). */
  nameField: string;
  /** Items are addressed by name, not id (environments). */
  byName?: boolean;
  /** Columns of `list` as a table. */
  columns: string[];
  /** Offers disable/enable. */
  toggles: boolean;
}

export async function listItems(ctx: CliContext, r: Resource): Promise<Item[]> {
  const answer = await ctx.client().get<Record<string, Item[]>>(r.path);
  return answer[r.listField] ?? [];
}

/** The id (or, for byName resources, the name) that the item routes take. */
export async function resolveItem(ctx: CliContext, r: Resource, ref: string): Promise<Item> {
  const items = await listItems(ctx, r);
  const found = items.find((i) => i.id === ref) ?? items.filter((i) => i[r.nameField] === ref);
  if (!Array.isArray(found)) return found;
  if (found.length === 1) return found[0];
  if (found.length > 1) throw new CliError(`${found.length} ${r.noun}s are named "${ref}": name one by its id`);
  throw new CliError(`no ${r.noun} with the id or name "${ref}"`);
}

/** `an API key`, `a user`. */
export function aNoun(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

function itemPath(r: Resource, item: Item): string {
  return `${r.path}/${encodeURIComponent(String(r.byName ? item[r.nameField] : item.id))}`;
}

function show(value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : cellText(v)}`)
      .join(' ');
  return cellText(value);
}

async function list(ctx: CliContext, r: Resource, output: 'table' | 'json'): Promise<void> {
  const items = await listItems(ctx, r);
  if (output === 'json') return write(JSON.stringify(items, null, 2) + '\n');
  await write(renderTable({ headers: r.columns, rows: items.map((i) => r.columns.map((c) => show(i[c]))) }, ctx.out));
}

async function setState(ctx: CliContext, r: Resource, ref: string, state: 'disable' | 'enable'): Promise<void> {
  const item = await resolveItem(ctx, r, ref);
  await ctx.client().post(`${itemPath(r, item)}/${state}`);
  note(`${state}d ${r.noun} "${String(item[r.nameField])}" (${String(item.id ?? item[r.nameField])})`);
}

async function remove(ctx: CliContext, r: Resource, ref: string): Promise<void> {
  const item = await resolveItem(ctx, r, ref);
  await ctx.client().delete(itemPath(r, item));
  note(`deleted ${r.noun} "${String(item[r.nameField])}"`);
}

export const outputOption = () => choice('-o, --output <format>', 'table or json', ['table', 'json'] as const, 'table');

/** Adds `list`, `disable`, `enable` (when the resource has them) and `delete` under `group`. */
export function registerItemCommands(group: Command, ctx: CliContext, r: Resource): void {
  group
    .command('list')
    .description(`list ${r.noun}s`)
    .addOption(outputOption())
    .action((opts: { output: 'table' | 'json' }) => list(ctx, r, opts.output));
  const ref = r.byName ? '<name>' : '<id-or-name>';
  if (r.toggles) {
    for (const state of ['disable', 'enable'] as const) {
      group
        .command(state)
        .description(`${state} ${aNoun(r.noun)}${state === 'disable' ? ' (refused from then on, until enabled)' : ''}`)
        .argument(ref)
        .action((id: string) => setState(ctx, r, id, state));
    }
  }
  group
    .command('delete')
    .description(`delete ${aNoun(r.noun)} (immediate)`)
    .argument(ref)
    .action((id: string) => remove(ctx, r, id));
}
