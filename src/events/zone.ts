import { SvcError } from '../errors/svc-error.js';

/**
 * A time zone for zoneless timestamps (SVC_TIMEZONE): UTC or an IANA name resolved through Intl.
 * Offsets are cached per 15-minute bucket, so converting costs a Map lookup per event, not an
 * Intl call. Safe to share between callers (the cache is the only state).
 */
export interface Zone {
  readonly name: string;
  /** Converts a wall-clock time in this zone, given as if it were UTC milliseconds, into real UTC ms. */
  localToUtcMs(localMs: number): number;
  /** Offset (ms, east of UTC positive) of this zone at a UTC instant. */
  offsetMs(utcMs: number): number;
}

export const UTC_ZONE: Zone = Object.freeze({
  name: 'UTC',
  localToUtcMs: (localMs: number) => localMs,
  offsetMs: () => 0,
});

const BUCKET_MS = 15 * 60 * 1000;
const MAX_CACHE = 50_000;

class IanaZone implements Zone {
  private readonly cache = new Map<number, number>();
  private readonly fmt: Intl.DateTimeFormat;

  constructor(readonly name: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  offsetMs(utcMs: number): number {
    const key = Math.floor(utcMs / BUCKET_MS);
    let off = this.cache.get(key);
    if (off === undefined) {
      off = this.computeOffset(key * BUCKET_MS);
      if (this.cache.size >= MAX_CACHE) this.cache.clear();
      this.cache.set(key, off);
    }
    return off;
  }

  localToUtcMs(localMs: number): number {
    // two passes settle the offset except inside a DST gap, where the later offset wins
    const guess = localMs - this.offsetMs(localMs);
    return localMs - this.offsetMs(guess);
  }

  private computeOffset(utcMs: number): number {
    const p: Record<string, number> = {};
    for (const part of this.fmt.formatToParts(new Date(utcMs))) {
      if (part.type !== 'literal') p[part.type] = Number(part.value);
    }
    const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    return asUtc - Math.floor(utcMs / 1000) * 1000;
  }
}

const zones = new Map<string, Zone>();

/** Resolves a zone name (`UTC`, `Etc/UTC`, `Europe/Berlin`, ...). Throws invalid_input for an unknown name. */
export function zoneByName(name: string): Zone {
  const upper = name.toUpperCase();
  if (upper === 'UTC' || upper === 'ETC/UTC' || upper === 'Z' || upper === 'GMT') return UTC_ZONE;
  let z = zones.get(name);
  if (!z) {
    try {
      z = new IanaZone(name);
    } catch {
      throw new SvcError('invalid_input', `unknown time zone "${name}"`);
    }
    zones.set(name, z);
  }
  return z;
}
