/**
 * The command line's one error type: a message for the user (no stack), the exit code, and what
 * to show under the message (the query with a caret under the parser's position).
 * Exit codes: 1 a failed command (the server refused, a file cannot be read), 2 bad usage or
 * configuration (commander's own usage errors also exit 2).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    /** Lines printed after the message (e.g. the query and its caret). */
    readonly detail: string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, 2);
}
