import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { timeContext } from '../../../src/events/timestamp.js';
import { SyslogFramer } from '../../../src/ingest/syslog/framing.js';
import { parseSyslog } from '../../../src/ingest/syslog/parse.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const utc = timeContext('UTC', NOW);

describe('parseSyslog', () => {
  it('reads an RFC 5424 message from logger with structured data', () => {
    const e = parseSyslog(
      '<132>1 2026-11-22T04:36:34.276378+00:00 vm myapp 42 ID7 [timeQuality tzKnown="1" isSynced="0"][ex@32473 k="v \\"1\\""] hello 5424',
      utc,
    );
    assert.equal(e.timeUs, Date.parse('2026-11-22T04:36:34.276Z') * 1000 + 378);
    assert.equal(e.host, 'vm');
    assert.equal(e.source, 'myapp');
    assert.equal(e.message, 'hello 5424');
    assert.deepEqual(e.fields, {
      facility: 'local0',
      severity: 'warning',
      priority: 132,
      syslog_format: 'rfc5424',
      app: 'myapp',
      procid: '42',
      msgid: 'ID7',
      'timeQuality.tzKnown': '1',
      'timeQuality.isSynced': '0',
      'ex@32473.k': 'v "1"',
    });
  });

  it('reads RFC 5424 nil values and no structured data', () => {
    const e = parseSyslog('<14>1 - - - - - - just text', utc);
    assert.equal(e.timeUs, NOW * 1000);
    assert.equal(e.host, '');
    assert.equal(e.message, 'just text');
  });

  it('reads RFC 3164 with no year in the configured zone', () => {
    const e = parseSyslog('<13>Nov 22 04:36:34 vm myapp[77]: hello 3164', utc);
    assert.equal(e.timeUs, Date.parse('2026-11-22T04:36:34Z') * 1000);
    assert.deepEqual(
      [e.host, e.source, e.fields.procid, e.message, e.fields.severity],
      ['vm', 'myapp', '77', 'hello 3164', 'notice'],
    );
    const berlin = parseSyslog('<13>Nov 22 04:36:34 vm myapp: x', timeContext('Europe/Berlin', NOW));
    assert.equal(berlin.timeUs, Date.parse('2026-11-22T03:36:34Z') * 1000);
  });

  it("reads an RFC 3164 time with syslog-ng's frac-digits() fraction", () => {
    const e = parseSyslog('<13>Nov 22 04:36:34.249 vm myapp[77]: hello frac', utc);
    assert.equal(e.timeUs, Date.parse('2026-11-22T04:36:34.249Z') * 1000);
    assert.deepEqual([e.host, e.source, e.message], ['vm', 'myapp', 'hello frac']);
    const micro = parseSyslog('<13>Nov 22 04:36:34.249123 vm myapp: x', utc);
    assert.equal(micro.timeUs, Date.parse('2026-11-22T04:36:34.249Z') * 1000 + 123);
  });

  it('puts a December date seen in January into the previous year', () => {
    const e = parseSyslog('<13>Dec 31 23:59:59 vm app: late', timeContext('UTC', Date.parse('2027-01-01T00:00:10Z')));
    assert.equal(e.timeUs, Date.parse('2026-12-31T23:59:59Z') * 1000);
  });

  it("reads rsyslog's forward format and a message without a host", () => {
    const e = parseSyslog('<30>2026-11-20T10:00:00.5+01:00 web-1 sshd[9]: accepted', utc);
    assert.equal(e.timeUs, Date.parse('2026-11-20T09:00:00.5Z') * 1000);
    assert.deepEqual([e.host, e.source, e.message], ['web-1', 'sshd', 'accepted']);
    const local = parseSyslog('<13>Nov 22 04:36:34 myapp: no host here', utc);
    assert.deepEqual([local.host, local.source, local.message], ['', 'myapp', 'no host here']);
  });

  it('keeps a message without a PRI whole', () => {
    const e = parseSyslog('not syslog at all', utc);
    assert.equal(e.message, 'not syslog at all');
    assert.deepEqual(e.fields, {});
  });

  it('keeps every value of a PARAM-NAME that repeats in its element', () => {
    const e = parseSyslog('<14>1 2026-11-22T04:36:34Z vm app - - [x@1 k="1" k="2" K="3"] m', utc);
    assert.deepEqual([e.fields['x@1.k'], e.fields['x@1.k_2'], e.fields['x@1.K']], ['1', '2', '3']);
  });
});

describe('SyslogFramer', () => {
  it('splits LF lines and octet-counted frames across chunk boundaries', () => {
    const f = new SyslogFramer(1000);
    const out = [
      ...f.push(Buffer.from('<13>a\n11 <13>b')),
      ...f.push(Buffer.from('cdefg\n<13>c')),
      ...f.push(Buffer.from('\r\n')),
    ];
    assert.deepEqual(out, ['<13>a', '<13>bcdefg', '<13>c']);
  });

  it("trims rsyslog's trailing LF counted in the frame", () => {
    const f = new SyslogFramer(1000);
    assert.deepEqual(f.push(Buffer.from('6 <13>x\n6 <13>y\n')), ['<13>x', '<13>y']);
  });

  it('bounds frames: cuts long lines and long counted frames, counting both', () => {
    const f = new SyslogFramer(8);
    const out = f.push(Buffer.from('<13>0123456789\n<13>ok\n20 <13>abcdefghijklmnop<13>z\n'));
    assert.deepEqual(out, ['<13>0123', '<13>ok', '<13>abcd', '<13>z']);
    assert.equal(f.oversized, 2);
    assert.deepEqual(f.push(Buffer.from('x'.repeat(50))), ['xxxxxxxx']);
    assert.deepEqual(f.push(Buffer.from('yyy\n<13>aft\n')), ['<13>aft']);
  });

  it('returns an unterminated last line at the end of the stream', () => {
    const f = new SyslogFramer(100);
    assert.deepEqual(f.push(Buffer.from('<13>last')), []);
    assert.deepEqual(f.end(), ['<13>last']);
  });
});
