import { SvcError } from '../../errors/svc-error.js';
import { LabelSyntaxError, parseLabels } from './labels.js';

/** A Loki push as both encodings carry it: streams of labelled entries. */
export interface LokiEntry {
  timeUs: number;
  /** The timestamp as sent (JSON's ns string), kept as time_original when it is not used. */
  rawTime?: string | number;
  line: string;
  metadata?: Record<string, string>;
}

export interface LokiStream {
  labels: Record<string, string>;
  entries: LokiEntry[];
}

/** A stream's label set (`{job="x", host="y"}`) as fields; bad syntax is the caller's 400. */
export function labelsOf(s: string): Record<string, string> {
  try {
    return parseLabels(s);
  } catch (e) {
    if (e instanceof LabelSyntaxError) throw new SvcError('invalid_input', e.message);
    throw e;
  }
}
