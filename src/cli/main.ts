#!/usr/bin/env node
import { runCli } from './program.js';

// `svc search … | head`: the reader went away; that is the end of the output, not an error
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

// the `svc` command: `svc` / `svc serve` runs the service, the others talk to one (docs/cli.md);
// runCli reports every error itself and answers an exit code, so it never rejects
void runCli(process.argv.slice(2)).then((code) => {
  if (code !== 0) process.exitCode = code;
});
