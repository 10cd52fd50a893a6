import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timeContext } from '../../../src/events/timestamp.js';
import { parseSyslog } from '../../../src/ingest/syslog/parse.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LOGHUB = join(resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real'), 'loghub');
const utc = timeContext('UTC', Date.parse('2026-11-22T12:00:00Z'));

/** [line after `<13>`, host, app, procid, message] as syslog-ng names them; the message is kept whole when the tag has no colon. */
const SHAPES: [string, string, string | undefined, string | undefined, string][] = [
  // Linux (sysklogd)
  ['Jun 19 04:09:11 combo syslogd 1.4.1: restart.', 'combo', 'syslogd', undefined, 'syslogd 1.4.1: restart.'],
  [
    'Jul  7 08:06:15 combo  -- root[2421]: ROOT LOGIN ON tty2',
    'combo',
    '--',
    undefined,
    '-- root[2421]: ROOT LOGIN ON tty2',
  ],
  [
    'Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown',
    'combo',
    'sshd(pam_unix)',
    '19939',
    'check pass; user unknown',
  ],
  ['Jun 14 15:16:01 combo kernel: Linux version 2.6.5', 'combo', 'kernel', undefined, 'Linux version 2.6.5'],
  // macOS
  [
    'Jul  1 09:29:02 calvisitor-10-105-160-95 sandboxd[129] ([31211]): com.apple.Addres(31211) deny',
    'calvisitor-10-105-160-95',
    'sandboxd',
    '129',
    'sandboxd[129] ([31211]): com.apple.Addres(31211) deny',
  ],
  [
    'Jul  4 23:22:09 calvisitor-10-105-162-105 Microsoft Word[14463]: Cocoa scripting error',
    'calvisitor-10-105-162-105',
    'Microsoft',
    undefined,
    'Microsoft Word[14463]: Cocoa scripting error',
  ],
  [
    'Jul  3 17:10:11 calvisitor-10-105-160-184 BezelServices 255.10[94]: ASSERTION FAILED',
    'calvisitor-10-105-160-184',
    'BezelServices',
    undefined,
    'BezelServices 255.10[94]: ASSERTION FAILED',
  ],
  [
    'Jul  1 09:00:55 calvisitor-10-105-160-95 kernel[0]: IOThunderboltSwitch<0>(0x0)::listenerCallback - x',
    'calvisitor-10-105-160-95',
    'kernel',
    '0',
    'IOThunderboltSwitch<0>(0x0)::listenerCallback - x',
  ],
  // Thunderbird (syslog-ng relays: hosts with / and @, a path as the program, kernel lines without a tag)
  [
    'Nov 9 12:01:01 dn228/dn228 crond(pam_unix)[2915]: session closed for user root',
    'dn228/dn228',
    'crond(pam_unix)',
    '2915',
    'session closed for user root',
  ],
  [
    'Nov 9 12:01:01 local@tbird-admin1 /apps/x86_64/system/ganglia-3.0.1/sbin/gmetad[1682]: data_thread() got',
    'local@tbird-admin1',
    '/apps/x86_64/system/ganglia-3.0.1/sbin/gmetad',
    '1682',
    'data_thread() got',
  ],
  [
    'Nov 9 12:01:41 src@aadmin1 dhcpd: DHCPDISCOVER from 00:11:43:e3:ba:c3 via eth1',
    'src@aadmin1',
    'dhcpd',
    undefined,
    'DHCPDISCOVER from 00:11:43:e3:ba:c3 via eth1',
  ],
  [
    'Nov 9 12:10:43 local@tbird-admin1 scsi0 : LSI Logic MegaRAID driver',
    'local@tbird-admin1',
    'scsi0',
    undefined,
    'scsi0 : LSI Logic MegaRAID driver',
  ],
  [
    'Nov 9 12:10:43 local@tbird-admin1 - User ID: CentOS-4',
    'local@tbird-admin1',
    '-',
    undefined,
    '- User ID: CentOS-4',
  ],
  // OpenSSH
  [
    'Dec 10 06:55:46 LabSZ sshd[24200]: Invalid user webmaster from 173.234.31.186',
    'LabSZ',
    'sshd',
    '24200',
    'Invalid user webmaster from 173.234.31.186',
  ],
  // no host, an IPv6 host, syslogd's repeat line, no time (then no host either)
  ['Nov 22 04:36:34 syslogd[1]: restart', '', 'syslogd', '1', 'restart'],
  ['Nov 22 04:36:34 fe80::1 app: x', 'fe80::1', 'app', undefined, 'x'],
  ['Nov 22 04:36:34 beef: x', '', 'beef', undefined, 'x'],
  [
    'Nov 22 04:36:34 combo last message repeated 3 times',
    'combo',
    undefined,
    undefined,
    'last message repeated 3 times',
  ],
  ['syslogd 1.4.1: restart.', '', 'syslogd', undefined, 'syslogd 1.4.1: restart.'],
  ['app[7]: no time', '', 'app', '7', 'no time'],
  ['[12.5] dmesg line', '', undefined, undefined, '[12.5] dmesg line'],
];

describe('lenient RFC 3164 tags', () => {
  for (const [line, host, app, procid, message] of SHAPES) {
    it(`reads ${JSON.stringify(line.slice(0, 60))}`, () => {
      const e = parseSyslog(`<13>${line}`, utc);
      assert.deepEqual(
        [e.host, e.fields.app, e.fields.procid, e.message, e.source],
        [host, app, procid, message, app ?? ''],
      );
    });
  }
});

/** The real file's lines as syslog messages: a PRI before each; Thunderbird's four leading columns (alert, epoch, date, node) are loghub's, not syslog's. */
function realLines(name: string): string[] {
  const text = readFileSync(join(LOGHUB, name, `${name}_2k.log`), 'utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return name === 'Thunderbird' ? lines.map((l) => l.split(' ').slice(4).join(' ')) : lines;
}

describe(
  'tags of real syslog files',
  { skip: !existsSync(LOGHUB) && `no real data at ${LOGHUB} (set SVC_REAL_DATA)` },
  () => {
    for (const name of ['Linux', 'Mac', 'OpenSSH', 'Thunderbird']) {
      it(`gives every ${name} line its host and app and keeps its text whole`, () => {
        const lines = realLines(name);
        assert.ok(lines.length >= 1999);
        let headers = 0;
        for (const line of lines) {
          const e = parseSyslog(`<13>${line}`, utc);
          // the text after the time and the host: "Mmm dd hh:mm:ss host rest"
          const rest = line.replace(/^\w{3} +\d+ \d\d:\d\d:\d\d \S+ +/, '');
          const hostWord = line.replace(/^\w{3} +\d+ \d\d:\d\d:\d\d /, '').split(' ')[0];
          assert.equal(e.host, hostWord, line);
          assert.ok(e.timeUs !== utc.nowUs, `the time is read: ${line}`);
          assert.equal(e.fields.app, /^[^ [:]+/.exec(rest)![0], line);
          const header = `${e.fields.app}${e.fields.procid ? `[${e.fields.procid}]` : ''}:`;
          // nothing is lost: the message is the rest, or the rest after its `app[pid]:` header
          if (e.message !== rest) {
            headers++;
            assert.ok(rest === `${header} ${e.message}` || (rest === header && e.message === ''), line);
          } else assert.ok(!rest.startsWith(`${header} `), `a header is taken off: ${line}`);
        }
        assert.ok(headers > lines.length * 0.8, `${headers} of ${lines.length} had a header`);
      });
    }
  },
);
