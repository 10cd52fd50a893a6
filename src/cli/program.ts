import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { registerAdmin } from './admin.js';
import { createContext, type CliContext } from './context.js';
import { CliError } from './errors.js';
import { registerIngest } from './ingest.js';
import { registerLogin } from './login.js';
import { registerSearch } from './search.js';
import { registerServe } from './serve.js';
import { registerTail } from './tail.js';
import { paint } from './terminal.js';

/**
 * The `svc` command (docs/decisions/0019-one-command-one-executable.md): `svc` or `svc serve` runs the
 * service; the other commands talk to a running one over its API (SVC_URL and SVC_TOKEN, or what `svc login`
 * stored).
 */
export function buildProgram(ctx: CliContext = createContext()): Command {
  const program = new Command('svc')
    .description('svc: log search and ingest service. Without a command, starts the service (svc serve).')
    .version(`svc ${VERSION}`, '-V, --version', 'print the version')
    .exitOverride()
    .configureHelp({ sortSubcommands: false })
    .addHelpText(
      'after',
      '\nClient commands talk to SVC_URL (or the URL of svc login, else http://127.0.0.1:7300)\nwith SVC_TOKEN (or the stored token). Each command has --help. Docs: docs/cli.md',
    );
  registerServe(program);
  registerLogin(program, ctx);
  registerSearch(program, ctx);
  registerTail(program, ctx);
  registerIngest(program, ctx);
  registerAdmin(program, ctx);
  program
    .command('version')
    .description('print the version')
    .action(() => void process.stdout.write(`svc ${VERSION}\n`));
  return program;
}

/** Prints an error for a person: `svc: <message>` and its detail lines; answers the exit code. */
function report(e: unknown, color: boolean): number {
  if (e instanceof CommanderError) {
    // commander printed its message (or the help) already
    return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help'
      ? 0
      : 2;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  process.stderr.write(`${paint(color, 'red', 'svc:')} ${err.message}\n`);
  if (e instanceof CliError) {
    for (const line of e.detail) process.stderr.write(line + '\n');
    return e.exitCode;
  }
  return 1;
}

/** Runs the command line; resolves with the exit code (serve resolves once listening and keeps running). */
export async function runCli(argv: string[]): Promise<number> {
  const ctx = createContext();
  const program = buildProgram(ctx);
  const first = argv[0];
  // the default command (serve) would otherwise take a mistyped command for its argument
  if (
    first !== undefined &&
    !first.startsWith('-') &&
    !program.commands.some((c) => c.name() === first || c.aliases().includes(first)) &&
    first !== 'help'
  ) {
    return report(new CliError(`unknown command "${first}" (svc --help lists them)`, 2), ctx.errColor);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    return report(e, ctx.errColor);
  }
}
