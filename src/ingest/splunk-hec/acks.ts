/**
 * HEC indexer acknowledgement (Splunk's `useACK`, which Kinesis Firehose and NiFi require). A
 * request that names a channel (`X-Splunk-Request-Channel` or `?channel=`) gets an `ackId` in its
 * answer; `POST /services/collector/ack` with `{"acks":[ids]}` answers which of a channel's ids
 * are indexed.
 *
 * svc answers a request only once its events are fsynced in the WAL and searchable, so an id is
 * handed out already acknowledged. Ids of a channel rise from a base taken at start (milliseconds
 * since the epoch), so ids from before a restart lie below the base and still answer true; an id
 * this process has not handed out yet answers false, as Splunk answers for unknown ids.
 */
export class AckChannels {
  /** Next id per channel; Map order is least recently used first. */
  private readonly next = new Map<string, number>();

  constructor(
    private readonly base = Date.now(),
    private readonly maxChannels = 10_000,
  ) {}

  /** A new acknowledged id on `channel`. */
  issue(channel: string): number {
    const id = this.next.get(channel) ?? this.base;
    this.touch(channel, id + 1);
    return id;
  }

  /** Which of `ids` are acknowledged on `channel`: every id handed out, here or before a restart. */
  status(channel: string, ids: number[]): Record<string, boolean> {
    const next = this.next.get(channel) ?? this.base;
    if (this.next.has(channel)) this.touch(channel, next);
    const out: Record<string, boolean> = {};
    for (const id of ids) out[String(id)] = id < next;
    return out;
  }

  private touch(channel: string, next: number): void {
    this.next.delete(channel);
    this.next.set(channel, next);
    // a forgotten channel's old ids lie below its next id and would answer false: keep many
    if (this.next.size > this.maxChannels) this.next.delete(this.next.keys().next().value!);
  }
}

/** Splunk's channel ids are GUIDs; svc takes any short token of letters, digits, `-` and `_`. */
export const CHANNEL_RE = /^[A-Za-z0-9_-]{1,128}$/;
