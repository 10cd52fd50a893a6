import { loadClientEnv, type ClientEnv } from '../config/client.js';
import { ApiClient } from './http-client.js';
import { resolveTarget } from './session.js';
import { stderrColor, stdoutTerminal, type Terminal } from './terminal.js';

/** What every command receives: the client settings, where it prints, and its API client. */
export interface CliContext {
  env: ClientEnv;
  out: Terminal;
  /** Colour on stderr (errors, progress). */
  errColor: boolean;
  /** The client for SVC_URL / the stored session (resolved on first use: serve never needs it). */
  client(): ApiClient;
}

export function createContext(): CliContext {
  const env = loadClientEnv();
  let client: ApiClient | undefined;
  return {
    env,
    out: stdoutTerminal(env.noColor),
    errColor: stderrColor(env.noColor),
    client: () => (client ??= new ApiClient(resolveTarget(env))),
  };
}

/** Writes to stdout, resolving once the text is handed to the OS (so large outputs keep their order and pace). */
export function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once('drain', resolve).once('error', reject);
  });
}

/** A line for the person at the terminal (stderr): notes, summaries, warnings. */
export function note(text: string): void {
  process.stderr.write(text + '\n');
}
