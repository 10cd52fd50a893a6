import { describe } from 'node:test';
import { roundTrip } from './round-trip.js';

describe('the timechart pipe', () => {
  roundTrip({
    canonical: [
      '* | timechart span=1m count',
      '* | timechart span=1h count by host',
      '* | timechart avg(ms), max(ms) by host',
      '* | timechart span=5m count by "user name"',
    ],
    canonicalized: [
      ["* | timechart count by 'user name'", '* | timechart count by "user name"'],
      ['* | timechart count by "host"', '* | timechart count by host'],
    ],
    rejected: [['a | timechart span=fast count', 'unexpected "fast": missing a span such as 30s, 1m, 1h or 1d', 19]],
  });
});
