import { createInterface } from 'node:readline';
import { CliError } from './errors.js';

/** Reading what a person types (a password without echo) or what a script pipes in. */

/** All of stdin as text, without one trailing newline (`echo secret | svc login --password-stdin`). */
export async function readStdinSecret(what: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text.length === 0) throw new CliError(`missing ${what}: stdin was empty`, 2);
  return text;
}

/** One line typed on the terminal, echoed (a user name). */
export async function promptLine(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.question(question, resolve));
  } finally {
    rl.close();
  }
}

/**
 * A secret typed on the terminal, not echoed: stdin in raw mode, read key by key until Enter.
 * Ctrl+C aborts (exit 130), Backspace erases. Needs stdin to be a terminal.
 */
export function promptSecret(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY)
    return Promise.reject(
      new CliError('cannot prompt for a password: stdin is not a terminal (use --password-stdin)', 2),
    );
  // echo off before the question shows: what is typed right after it must not reach the screen
  stdin.setRawMode(true);
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let secret = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(secret);
    };
    const onData = (buf: Buffer) => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n' || ch === '\x04') return done();
        if (ch === '\x03') return done(new CliError('interrupted', 1));
        if (ch === '\x7f' || ch === '\b') secret = [...secret].slice(0, -1).join('');
        else if (ch >= ' ') secret += ch;
      }
    };
    stdin.resume();
    stdin.on('data', onData);
  });
}
