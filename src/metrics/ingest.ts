import { Counter, type Registry } from 'prom-client';

/**
 * What an ingest protocol reports, bound to that protocol (ingest/common/context.ts builds one per
 * protocol). Called on every request, never per event: each call is one label lookup and an add.
 */
export interface IngestMeter {
  /** A request's events are durable: `events` of them, from a body of `bytes` bytes (decompressed), into `env`. */
  stored: (env: string, events: number, bytes: number) => void;
  /** Lines, items, entries or records of a request refused one by one (bad JSON, an event limit) while the rest went on. */
  rejected: (lines: number) => void;
  /** A request answered with an error, by its error code; a queue_full or other too_many_requests also counts as throttled. */
  refused: (err: { code: string; kind: string }) => void;
}

/**
 * The ingest counters. Labels: `protocol` (the closed list of svc's protocols), `env` (environments
 * an admin created, bounded by how many exist), `code` (the closed catalog in errors/codes.ts).
 */
export class IngestMetrics {
  private readonly events: Counter<'protocol' | 'env'>;
  private readonly bytes: Counter<'protocol' | 'env'>;
  private readonly rejectedLines: Counter<'protocol'>;
  private readonly failed: Counter<'protocol' | 'code'>;
  private readonly throttled: Counter<'protocol'>;

  constructor(registers: Registry[]) {
    this.events = new Counter({
      name: 'svc_ingest_events_total',
      help: 'Events stored (durable in the WAL or as parts), by ingest protocol and environment.',
      labelNames: ['protocol', 'env'],
      registers,
    });
    this.bytes = new Counter({
      name: 'svc_ingest_bytes_total',
      help: 'Request body bytes (decompressed) of requests whose events were stored; syslog: frame bytes.',
      labelNames: ['protocol', 'env'],
      registers,
    });
    this.rejectedLines = new Counter({
      name: 'svc_ingest_rejected_lines_total',
      help: 'Lines, items, entries or records refused one by one inside an answered request (bad JSON, event limits, syslog drops).',
      labelNames: ['protocol'],
      registers,
    });
    this.failed = new Counter({
      name: 'svc_ingest_failed_requests_total',
      help: 'Ingest requests answered with an error, by protocol and svc error code.',
      labelNames: ['protocol', 'code'],
      registers,
    });
    this.throttled = new Counter({
      name: 'svc_ingest_throttled_total',
      help: 'Ingest requests told to retry later (HTTP 429, HEC "server busy", bulk items 429) because a queue was full.',
      labelNames: ['protocol'],
      registers,
    });
  }

  /** The meter of one protocol. */
  meter(protocol: string): IngestMeter {
    return {
      stored: (env, events, bytes) => {
        if (events <= 0) return;
        this.events.inc({ protocol, env }, events);
        this.bytes.inc({ protocol, env }, bytes);
      },
      rejected: (lines) => {
        if (lines > 0) this.rejectedLines.inc({ protocol }, lines);
      },
      refused: (err) => {
        this.failed.inc({ protocol, code: err.code });
        if (err.kind === 'too_many_requests') this.throttled.inc({ protocol });
      },
    };
  }
}
