import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { note } from './context.js';
import { CliError, usageError } from './errors.js';
import { ApiClient } from './http-client.js';
import { promptLine, promptSecret, readStdinSecret } from './prompt.js';
import {
  DEFAULT_URL,
  credentialsPath,
  normalizeUrl,
  readSession,
  removeSession,
  resolveTarget,
  writeSession,
} from './session.js';

interface LoginOptions {
  url?: string;
  user?: string;
  passwordStdin?: boolean;
  tokenStdin?: boolean;
}

interface LoginAnswer {
  token: string;
  expiresAt: string;
  user: { username: string; role: string };
}

interface Me {
  kind: string;
  name: string;
  role?: string;
}

async function askUser(opts: LoginOptions): Promise<string> {
  if (opts.user) return opts.user;
  if (opts.passwordStdin || !process.stdin.isTTY) return 'admin';
  return (await promptLine('user [admin]: ')).trim() || 'admin';
}

/** Logs in with a user name and password, or checks a given token (an API key); stores it 0600. */
async function login(ctx: CliContext, opts: LoginOptions): Promise<void> {
  if (opts.passwordStdin && opts.tokenStdin) throw usageError('--password-stdin and --token-stdin exclude each other');
  const url = normalizeUrl(opts.url ?? ctx.env.url ?? readSession(ctx.env)?.url ?? DEFAULT_URL);
  const client = new ApiClient({ url, token: undefined });
  let stored;
  if (opts.tokenStdin) {
    const token = await readStdinSecret('token');
    const me = await client.json<Me>('GET', '/api/auth/me', { token });
    stored = { url, token, name: me.name };
  } else {
    const username = await askUser(opts);
    const password = opts.passwordStdin
      ? await readStdinSecret('password')
      : await promptSecret(`password for ${username} at ${url}: `);
    const a = await client.post<LoginAnswer>('/api/auth/login', { username, password });
    stored = { url, token: a.token, name: a.user.username, expiresAt: a.expiresAt };
  }
  const path = writeSession(ctx.env, stored);
  const until = stored.expiresAt ? `; the session lasts until ${stored.expiresAt}` : '';
  note(`logged in to ${url} as ${stored.name}${until} (stored in ${path})`);
  if (ctx.env.token) note('note: SVC_TOKEN is set and wins over the stored token');
}

/** Ends the stored session on the server (best effort) and removes the file. */
async function logout(ctx: CliContext): Promise<void> {
  const s = readSession(ctx.env);
  if (!s) throw new CliError(`not logged in (no ${credentialsPath(ctx.env)})`);
  // an API key stays valid: logout only ends sessions
  if (!s.token.startsWith('svk_') && !s.token.startsWith('svi_')) {
    await new ApiClient({ url: s.url, token: s.token }).request('POST', '/api/auth/logout').catch(() => undefined);
  }
  removeSession(ctx.env);
  note(`logged out of ${s.url}`);
}

async function whoami(ctx: CliContext): Promise<void> {
  const target = resolveTarget(ctx.env);
  if (!target.token) throw new CliError(`not logged in to ${target.url} (run svc login, or set SVC_TOKEN)`);
  const me = await ctx.client().get<Me>('/api/auth/me');
  const kind = me.kind === 'user' ? `user, ${me.role}` : me.kind.replace('_', ' ');
  process.stdout.write(`${me.name} (${kind}) at ${target.url}\n`);
}

export function registerLogin(program: Command, ctx: CliContext): void {
  program
    .command('login')
    .description('log in to svc and store the session token (mode 0600) under the config dir')
    .option('--url <url>', `svc's address (default: SVC_URL, the stored one, else ${DEFAULT_URL})`)
    .option('--user <name>', 'user name (default: asked on a terminal, else admin)')
    .option('--password-stdin', 'read the password from stdin (for scripts)')
    .option('--token-stdin', 'store a token read from stdin instead (an API key svk_…), checked first')
    .action((opts: LoginOptions) => login(ctx, opts));
  program
    .command('logout')
    .description('end the stored session and remove the token file')
    .action(() => logout(ctx));
  program
    .command('whoami')
    .description('show who the stored token or SVC_TOKEN is')
    .action(() => whoami(ctx));
}
