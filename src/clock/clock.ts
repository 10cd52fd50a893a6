/** Wall clock, injectable so tests can move time (key expiry, retention) without sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock shifted by a fixed number of seconds (SVC_TEST_CLOCK_OFFSET_SECS). */
export function offsetClock(offsetSecs: number): Clock {
  if (offsetSecs === 0) return systemClock;
  return { now: () => Date.now() + offsetSecs * 1000 };
}

/** A clock tests can set and advance by hand. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
