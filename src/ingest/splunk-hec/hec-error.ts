import { SvcError } from '../../errors/svc-error.js';

/**
 * A request HEC refuses with one of Splunk's own codes (5 no data, 6 invalid data format, 10/11 data
 * channel, 12/13 event field): an SvcError invalid_input carrying `hecCode` and the extra fields
 * Splunk answers (`invalid-event-number`, `reason`) in its details; its message is Splunk's text.
 * respond.ts turns it into HEC's `{text, code}` answer.
 */
export function hecError(text: string, hecCode: number, extra?: Record<string, unknown>): SvcError {
  return new SvcError('invalid_input', text, { details: { hecCode, ...extra } });
}
