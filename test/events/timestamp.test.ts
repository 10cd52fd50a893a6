import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { leadingTimestamp, parseTimeValue, timeContext, formatUs, epochToUs } from '../../src/events/timestamp.js';
import { zoneByName } from '../../src/events/zone.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const utc = timeContext('UTC', NOW);
const at = (iso: string) => Date.parse(iso) * 1000;

/** [line from a real file (or a common format), expected instant] — zoneless times read as UTC. */
const LINES: [string, string][] = [
  ['2018-03-24T17:15:47.733658Z rest', '2018-03-24T17:15:47.733658Z'],
  ['83.149.9.216 - - [17/May/2015:10:05:03 +0000] "GET / HTTP/1.1" 200', '2015-05-17T10:05:03.000000Z'],
  ['1.2.3.4 - - [17/May/2015:10:05:03 -0700] "GET /"', '2015-05-17T17:05:03.000000Z'],
  ['Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure;', '2026-06-14T15:16:01.000000Z'],
  ['Jul  1 09:00:55 calvisitor-10-105-160-95 kernel[0]: IOThunderboltSwitch', '2026-07-01T09:00:55.000000Z'],
  ['Dec 10 06:55:46 LabSZ sshd[24200]: Invalid user webmaster', '2025-12-10T06:55:46.000000Z'],
  [
    '2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774]',
    '2015-07-29T17:41:44.747000Z',
  ],
  ['2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop', '2015-10-18T18:01:47.978000Z'],
  ['17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend', '2017-06-09T20:10:40.000000Z'],
  ['081109 203615 148 INFO dfs.DataNode$PacketResponder', '2008-11-09T20:36:15.000000Z'],
  ['[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok', '2005-12-04T04:47:44.000000Z'],
  ['20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579', '2017-12-23T22:15:29.606000Z'],
  ['20171224-1:2:35:789|Step_LSC|30002312|processHandleBroadcastAction', '2017-12-24T01:02:35.789000Z'],
  ['03-17 16:13:38.811  1702  2395 D WindowManager: printFreezing', '2026-03-17T16:13:38.811000Z'],
  ['[10.30 16:49:06] chrome.exe - proxy.cse.cuhk.edu.hk:5070 open', '2026-10-30T16:49:06.000000Z'],
  ['[2016-12-19 18:01:53,612] INFO [Group Metadata Manager on Broker 0]', '2016-12-19T18:01:53.612000Z'],
  ['- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 R02', '2005-06-03T22:42:50.000000Z'],
  ['R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 RAS KERNEL INFO', '2005-06-03T15:42:50.675872Z'],
  ['- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond(pam_unix)[2915]', '2005-11-09T20:01:01.000000Z'],
  ['2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack', '2016-09-28T04:30:30.000000Z'],
  ['nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi', '2017-05-16T00:00:00.008000Z'],
  [
    '134681 node-246 unix.hw state_change.unavailable 1077804742 1 Component State Change',
    '2004-02-26T14:12:22.000000Z',
  ],
  ['2286759 full partition status 1061219795 -1 running', '2003-08-18T15:16:35.000000Z'],
  ['APPREAD 1117869872 2005.06.04 R04-M1-N4-I:J18-U11 2005-06-04-00.24.32.432192', '2005-06-04T07:24:32.000000Z'],
  [
    'GoogleSoftwareUpdateAgent[31702]: 2017-07-01 19:46:26.133 GoogleSoftwareUpdateAgent[31702/0x7000002a0000]',
    '2017-07-01T19:46:26.133000Z',
  ],
  ['1521911747.733658 conn established', '2018-03-24T17:15:47.733658Z'],
  ['1521911747733 conn established', '2018-03-24T17:15:47.733000Z'],
  ['Sun, 04 Dec 2005 04:47:44 GMT: served', '2005-12-04T04:47:44.000000Z'],
  ['Sun Dec  4 04:47:44 UTC 2005 date output', '2005-12-04T04:47:44.000000Z'],
  ['17-May-2015 10:05:03.123 INFO [main] tomcat', '2015-05-17T10:05:03.123000Z'],
  ['05/17/2015 10:05:03 US style', '2015-05-17T10:05:03.000000Z'],
  ['17/05/2015 10:05:03 day first when the first number cannot be a month', '2015-05-17T10:05:03.000000Z'],
  ['17.05.2015 10:05:03 dotted day first', '2015-05-17T10:05:03.000000Z'],
  ['2024/01/02 03:04:05 [error] 123#0: nginx', '2024-01-02T03:04:05.000000Z'],
  ['May 17 2015 10:05:03 with a year', '2015-05-17T10:05:03.000000Z'],
  ['2015-05-17T10:05:03+02:00 offset', '2015-05-17T08:05:03.000000Z'],
  ['2015-05-17T10:05:03.5-0130 offset', '2015-05-17T11:35:03.500000Z'],
];

const NO_TIME = [
  '',
  '\tadvertised.host.name = null',
  '\tlog.retention.ms = 2147483647',
  'java.io.IOException: Connection to 2 was disconnected before the response was read',
  '\tat kafka.utils.NetworkClientBlockingOps$$anonfun$blockingSendAndReceive',
  'Mary had a little lamb',
  'version 1.2.3 released',
  '13:45 is not a date',
  '99-99 10:00:00 impossible month',
  'user=1521911747 not a leading time',
  // a date inside the text: a word before it starts the text (syslog messages without their header)
  'connection from 24.54.76.216 (24-54-76-216.bflony.adelphia.net) at Fri Jun 17 07:07:00 2005',
  'RTC: Maintenance 2017/7/1 19:52:56, sleep 2017/7/1 19:40:18',
  'INFO job started at 2019-01-02 03:04:05',
  '[error] retry at 2019-01-02 03:04:05',
];

describe('leadingTimestamp', () => {
  for (const [line, want] of LINES) {
    it(`reads ${JSON.stringify(line.slice(0, 40))} as ${want}`, () => {
      const got = leadingTimestamp(line, utc);
      assert.equal(got === undefined ? 'none' : formatUs(got), want);
    });
  }
  for (const line of NO_TIME) {
    it(`finds no timestamp in ${JSON.stringify(line.slice(0, 40))}`, () => {
      assert.equal(leadingTimestamp(line, utc), undefined);
    });
  }
});

describe('dates without a year', () => {
  it('take the current year when that is not in the future', () => {
    assert.equal(leadingTimestamp('Nov 22 11:00:00 host x', utc), at('2026-11-22T11:00:00Z'));
  });
  it('take last year when this year would be more than a day ahead', () => {
    assert.equal(leadingTimestamp('Dec 31 23:59:59 host x', utc), at('2025-12-31T23:59:59Z'));
    assert.equal(leadingTimestamp('11-24 10:00:00.000 logcat', utc), at('2025-11-24T10:00:00Z'));
  });
  it('allow a day of slack for a sender slightly ahead', () => {
    assert.equal(leadingTimestamp('Nov 22 20:00:00 host x', utc), at('2026-11-22T20:00:00Z'));
  });
  it('roll over at New Year: a December line read on January 1st is last year', () => {
    const jan1 = timeContext('UTC', Date.parse('2027-01-01T00:00:30Z'));
    assert.equal(leadingTimestamp('Dec 31 23:59:50 host x', jan1), at('2026-12-31T23:59:50Z'));
    assert.equal(leadingTimestamp('Jan  1 00:00:10 host x', jan1), at('2027-01-01T00:00:10Z'));
  });
  it('pick next year for early January seen from a zone already in the new year', () => {
    const tokyo = timeContext('Asia/Tokyo', Date.parse('2026-12-31T15:30:00Z')); // 00:30 on Jan 1 in Tokyo
    assert.equal(leadingTimestamp('Jan  1 00:20:00 host x', tokyo), at('2026-12-31T15:20:00Z'));
  });
});

describe('zones', () => {
  it('read zoneless times in the configured IANA zone, with DST', () => {
    const berlin = timeContext('Europe/Berlin', NOW);
    assert.equal(leadingTimestamp('2015-07-29 17:41:44,747 - INFO', berlin), at('2015-07-29T15:41:44.747Z'));
    assert.equal(leadingTimestamp('2015-01-29 17:41:44,747 - INFO', berlin), at('2015-01-29T16:41:44.747Z'));
    const ny = timeContext('America/New_York', NOW);
    assert.equal(parseTimeValue('2016-12-19 18:01:53', ny), at('2016-12-19T23:01:53Z'));
  });
  it('keep an explicit offset whatever the configured zone', () => {
    const berlin = timeContext('Europe/Berlin', NOW);
    assert.equal(leadingTimestamp('[17/May/2015:10:05:03 +0000] x', berlin), at('2015-05-17T10:05:03Z'));
    assert.equal(parseTimeValue('2018-03-24T17:15:47Z', berlin), at('2018-03-24T17:15:47Z'));
  });
  it('reject an unknown zone name', () => {
    assert.throws(() => zoneByName('Mars/Olympus'), /unknown time zone "Mars\/Olympus"/);
  });
});

describe('parseTimeValue', () => {
  const VALUES: [unknown, string][] = [
    ['2018-03-24T17:15:47.733658Z', '2018-03-24T17:15:47.733658Z'],
    ['2018-03-24T17:15:47Z', '2018-03-24T17:15:47.000000Z'],
    ['2018-03-24T17:15:47', '2018-03-24T17:15:47.000000Z'],
    ['2018-03-24 17:15:47.1+01:00', '2018-03-24T16:15:47.100000Z'],
    ['2018-03-24', '2018-03-24T00:00:00.000000Z'],
    ['20180324T171547Z', '2018-03-24T17:15:47.000000Z'],
    ['2018-03-24T17:15:47+05:00', '2018-03-24T12:15:47.000000Z'],
    ['20180324T171547', '2018-03-24T17:15:47.000000Z'],
    [1521911747, '2018-03-24T17:15:47.000000Z'],
    [1521911747.5, '2018-03-24T17:15:47.500000Z'],
    [1521911747733, '2018-03-24T17:15:47.733000Z'],
    [1521911747733658, '2018-03-24T17:15:47.733658Z'],
    [1521911747733658000, '2018-03-24T17:15:47.733658Z'],
    ['1521911747', '2018-03-24T17:15:47.000000Z'],
    ['1521911747.733658', '2018-03-24T17:15:47.733658Z'],
    ['1521911747733', '2018-03-24T17:15:47.733000Z'],
    ['1521911747733658', '2018-03-24T17:15:47.733658Z'],
    ['1521911747733658123', '2018-03-24T17:15:47.733658Z'],
    ['17/May/2015:10:05:03 +0000', '2015-05-17T10:05:03.000000Z'],
    ['Jun 14 15:16:01', '2026-06-14T15:16:01.000000Z'],
    [new Date('2018-03-24T17:15:47.733Z'), '2018-03-24T17:15:47.733000Z'],
  ];
  for (const [v, want] of VALUES) {
    it(`reads ${JSON.stringify(v)} as ${want}`, () => {
      const got = parseTimeValue(v, utc);
      assert.equal(got === undefined ? 'none' : formatUs(got), want);
    });
  }
  for (const v of [
    '',
    'yesterday',
    'abc123',
    null,
    undefined,
    true,
    {},
    [],
    NaN,
    Infinity,
    '2018-13-01T00:00:00Z',
    '2018-02-30Tx',
  ]) {
    it(`rejects ${JSON.stringify(v) ?? 'undefined'}`, () => {
      assert.equal(parseTimeValue(v, utc), undefined);
    });
  }
  it('decides the unit of an epoch number by magnitude', () => {
    assert.equal(epochToUs(1e9), 1e15);
    assert.equal(epochToUs(1e12), 1e15);
    assert.equal(epochToUs(1e15), 1e15);
    assert.equal(epochToUs(1e18), 1e15);
  });
});
