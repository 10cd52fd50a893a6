import type { Command } from 'commander';
import { note, write, type CliContext } from './context.js';
import { CliError } from './errors.js';
import { outputOption, registerItemCommands, resolveItem, type Item, type Resource } from './admin-items.js';
import { cellText, renderTable } from './format.js';
import { collect, intIn } from './options.js';
import { promptSecret, readStdinSecret } from './prompt.js';

/** `svc keys|tokens|users|envs …` and `svc gc`, over the admin API (an admin session or admin API key). */

const KEYS: Resource = {
  noun: 'API key',
  path: '/api/admin/api-keys',
  listField: 'apiKeys',
  nameField: 'name',
  columns: ['id', 'name', 'scopes', 'state', 'lastFour', 'lastUsedAt', 'expiresAt', 'createdBy'],
  toggles: true,
};
const TOKENS: Resource = {
  noun: 'ingest token',
  path: '/api/admin/ingest-tokens',
  listField: 'ingestTokens',
  nameField: 'name',
  columns: ['id', 'name', 'env', 'index', 'state', 'lastFour', 'lastUsedAt', 'createdBy'],
  toggles: true,
};
const USERS: Resource = {
  noun: 'user',
  path: '/api/admin/users',
  listField: 'users',
  nameField: 'username',
  columns: ['id', 'username', 'role', 'state', 'email', 'allow', 'createdAt'],
  toggles: true,
};
const ENVS: Resource = {
  noun: 'environment',
  path: '/api/admin/envs',
  listField: 'envs',
  nameField: 'name',
  byName: true,
  columns: ['name', 'retentionDays', 'createdAt'],
  toggles: false,
};

interface AllowOptions {
  allowEnv?: string[];
  allowIndex?: string[];
  allowTool?: string[];
}

function allowOf(o: AllowOptions): Item | undefined {
  if (!o.allowEnv && !o.allowIndex && !o.allowTool) return undefined;
  return { envs: o.allowEnv ?? ['*'], indexes: o.allowIndex ?? ['*'], tools: o.allowTool ?? ['*'] };
}

function withAllow(c: Command): Command {
  return c
    .option('--allow-env <env>', 'an environment it may read (repeat; default all)', collect)
    .option('--allow-index <index>', 'an index it may read (repeat; default all)', collect)
    .option('--allow-tool <tool>', 'an MCP tool it may call (repeat; default all)', collect);
}

/** The secret goes alone to stdout (`KEY=$(svc keys create …)`); what it is goes to stderr. */
async function printSecret(noun: string, created: Item): Promise<void> {
  note(`created ${noun} "${String(created.name)}" (id ${String(created.id)}); its secret, shown this once:`);
  await write(`${String(created.secret)}\n`);
}

function registerKeys(program: Command, ctx: CliContext): void {
  const g = program.command('keys').description('API keys (svk_…): list, create, disable, enable, delete');
  withAllow(
    g
      .command('create')
      .description('create an API key; prints its secret once')
      .argument('<name>')
      .option('--scope <scope>', 'standard, admin or mcp (repeat; default standard)', collect)
      .option('--purpose <text>', 'what the key is for')
      .option('--expires-in-days <n>', 'expiry (default never)', intIn(1, 3650)),
  ).action(async (name: string, o: AllowOptions & { scope?: string[]; purpose?: string; expiresInDays?: number }) => {
    const body = {
      name,
      scopes: o.scope ?? ['standard'],
      purpose: o.purpose,
      expiresInDays: o.expiresInDays,
      allow: allowOf(o),
    };
    await printSecret('API key', await ctx.client().post<Item>(KEYS.path, body));
  });
  registerItemCommands(g, ctx, KEYS);
}

function registerTokens(program: Command, ctx: CliContext): void {
  const g = program
    .command('tokens')
    .description('ingest tokens (svi_…, pinned to an environment): list, create, disable, enable, delete');
  g.command('create')
    .description('create an ingest token; prints its secret once')
    .argument('<name>')
    .requiredOption('--env <env>', 'the environment it writes to')
    .option('--index <index>', 'pin it to this index too')
    .action(async (name: string, o: { env: string; index?: string }) =>
      printSecret('ingest token', await ctx.client().post<Item>(TOKENS.path, { name, env: o.env, index: o.index })),
    );
  registerItemCommands(g, ctx, TOKENS);
}

async function newPassword(o: { passwordStdin?: boolean }, username: string): Promise<string> {
  if (o.passwordStdin) return readStdinSecret('password');
  const a = await promptSecret(`password for ${username}: `);
  if ((await promptSecret('again: ')) !== a) throw new CliError('the passwords differ', 2);
  return a;
}

function registerUsers(program: Command, ctx: CliContext): void {
  const g = program.command('users').description('users: list, create, disable, enable, delete');
  withAllow(
    g
      .command('create')
      .description('create a user (password asked on a terminal, or --password-stdin)')
      .argument('<username>')
      .option('--role <role>', 'user or admin', 'user')
      .option('--email <email>', 'for single sign-on')
      .option('--password-stdin', 'read the password from stdin'),
  ).action(async (username: string, o: AllowOptions & { role: string; email?: string; passwordStdin?: boolean }) => {
    const body = {
      username,
      password: await newPassword(o, username),
      role: o.role,
      email: o.email,
      allow: allowOf(o),
    };
    const u = await ctx.client().post<Item>(USERS.path, body);
    note(`created ${String(u.role)} "${String(u.username)}" (id ${String(u.id)})`);
  });
  registerItemCommands(g, ctx, USERS);
}

function retention(v: string): number | null {
  if (v === 'default') return null;
  return intIn(1, 36500)(v);
}

function registerEnvs(program: Command, ctx: CliContext): void {
  const g = program.command('envs').description('environments: list, create, update, delete');
  g.command('create')
    .description('create an environment')
    .argument('<name>')
    .option('--retention-days <n>', 'keep events this many days (default: the global retention)', intIn(1, 36500))
    .action(async (name: string, o: { retentionDays?: number }) => {
      await ctx.client().post(ENVS.path, { name, retentionDays: o.retentionDays });
      note(`created environment "${name}"`);
    });
  g.command('update')
    .description("change an environment's retention")
    .argument('<name>')
    .requiredOption('--retention-days <n|default>', 'days, or default for the global retention', retention)
    .action(async (name: string, o: { retentionDays: number | null }) => {
      const env = await resolveItem(ctx, ENVS, name);
      await ctx.client().json('PATCH', `${ENVS.path}/${encodeURIComponent(String(env.name))}`, {
        json: { retentionDays: o.retentionDays },
      });
      note(`updated environment "${name}"`);
    });
  registerItemCommands(g, ctx, ENVS);
}

interface GcReport {
  deletedBlocks: number;
  deletedEvents: number;
  blocks: { env: string; index: string; day: string; block: string; events: number }[];
  tookMs: number;
}

function registerGc(program: Command, ctx: CliContext): void {
  program
    .command('gc')
    .description('run the retention sweep now (POST /api/admin/gc) and list the blocks it deleted')
    .addOption(outputOption())
    .action(async (o: { output: 'table' | 'json' }) => {
      const r = await ctx.client().post<GcReport>('/api/admin/gc');
      if (o.output === 'json') return write(JSON.stringify(r, null, 2) + '\n');
      if (r.blocks.length > 0)
        await write(
          renderTable(
            {
              headers: ['env', 'index', 'day', 'block', 'events'],
              rows: r.blocks.map((b) => [b.env, b.index, b.day, b.block, cellText(b.events)]),
              right: [false, false, false, false, true],
            },
            ctx.out,
          ),
        );
      note(`deleted ${r.deletedBlocks} blocks (${r.deletedEvents} events) in ${Math.round(r.tookMs)} ms`);
    });
}

export function registerAdmin(program: Command, ctx: CliContext): void {
  registerKeys(program, ctx);
  registerTokens(program, ctx);
  registerUsers(program, ctx);
  registerEnvs(program, ctx);
  registerGc(program, ctx);
}
