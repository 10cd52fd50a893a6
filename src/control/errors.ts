/**
 * A control plane that cannot be opened (wrong key, corrupt file, missing key). Start-up stops with
 * this message; the stored document is never touched. Not an SvcError: it never reaches a client.
 */
export class ControlError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'ControlError';
  }
}
