import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isContinuation, TextLineTimes } from '../../src/events/text-time.js';
import { timeContext } from '../../src/events/timestamp.js';

const ctx = timeContext('UTC', Date.parse('2026-11-22T12:00:00Z'));
const ARRIVAL = 7;
const at = (iso: string) => Date.parse(iso) * 1000;

const CONTINUATIONS = [
  '\tat kafka.utils.NetworkClientBlockingOps$$anonfun$blockingSendAndReceive(NetworkClientBlockingOps.scala:115)',
  '    at com.example.Main.main(Main.java:12) ~[app.jar:1.0]',
  'at java.base/java.lang.Thread.run(Thread.java:829)',
  'at com.example.Main.lambda$main$0(Main.java)',
  'at Object.<anonymous> (/srv/app/index.js:10:5)',
  'at /srv/app/index.js:10:5',
  'Caused by: java.net.SocketException: Broken pipe',
  'Suppressed: java.io.IOException: close failed',
  '... 12 more',
  '... 5 common frames omitted',
  'java.io.IOException: Connection to 2 was disconnected before the response was read',
  'java.lang.OutOfMemoryError',
  'Traceback (most recent call last):',
  '  File "/srv/app.py", line 3, in <module>',
  "ValueError: invalid literal for int() with base 10: 'x'",
  'IOError: [Errno 2] No such file or directory',
  'During handling of the above exception, another exception occurred:',
];

const NEW_RECORDS = [
  'authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=218.188.2.4',
  'connection from 24.54.76.216 (24-54-76-216.bflony.adelphia.net) at Fri Jun 17 07:07:00 2005',
  'session opened for user root by (uid=0)',
  'Error: connection refused',
  'at least one worker (of 3) is down',
  'ALERT exited abnormally with [1]',
  '...done',
];

describe('isContinuation', () => {
  for (const l of CONTINUATIONS)
    it(`continues the record before: ${JSON.stringify(l.slice(0, 50))}`, () => assert.equal(isContinuation(l), true));
  for (const l of NEW_RECORDS)
    it(`starts a record: ${JSON.stringify(l.slice(0, 50))}`, () => assert.equal(isContinuation(l), false));
});

describe('TextLineTimes', () => {
  it("gives a line its own time, a continuation its parent's, any other line the arrival time", () => {
    const times = new TextLineTimes(ctx, ARRIVAL);
    const got = [
      '\tat first.Line(X.java:1)',
      '[2016-12-19 20:39:48,918] WARN fetch failed',
      'java.io.IOException: disconnected',
      '\tat kafka.x(y.scala:115)',
      'check pass; user unknown',
      '\tat z.After(Arrival.java:2)',
      '2015-07-29 17:41:44,747 - INFO ok',
    ].map((l) => times.timeOf(l));
    const t1 = at('2016-12-19T20:39:48.918Z');
    assert.deepEqual(got, [ARRIVAL, t1, t1, t1, ARRIVAL, ARRIVAL, at('2015-07-29T17:41:44.747Z')]);
  });

  it('gives a time outside the window the arrival time and its text, and its continuation lines follow it', () => {
    const times = new TextLineTimes(ctx, ARRIVAL);
    assert.equal(times.timeOf('2099-01-01T00:00:00Z far ahead'), ARRIVAL);
    assert.equal(times.original, '2099-01-01T00:00:00Z');
    assert.equal(times.timeOf('\tat a.B(C.java:1)'), ARRIVAL);
    assert.equal(times.original, undefined);
  });
});
