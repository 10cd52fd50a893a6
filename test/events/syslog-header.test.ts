import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { syslogHeaderHost } from '../../src/events/syslog-header.js';
import { REAL_DATA, realLines } from '../helpers/real-logs.js';
import { startE2E, E2E_ENV, type E2E } from '../ingest/helpers/e2e.js';

/**
 * A syslog file's lines sent as text name their host (events/syslog-header.ts), as Splunk's syslog
 * source type reads it: on the native text path and HEC raw, when the request names no host.
 */
describe('the host of a syslog header in a text line', () => {
  it('is the word after the time when a program tag follows it', () => {
    for (const [line, host] of [
      ['Dec 10 06:55:46 LabSZ sshd[24200]: reverse mapping checking getaddrinfo', 'LabSZ'],
      ['Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure;', 'combo'],
      ['Jun  9 06:06:20 combo syslogd 1.4.1: restart.', 'combo'],
      ['Jul  1 09:00:55 calvisitor-10-105-160-95 kernel[0]: IOThunderboltSwitch', 'calvisitor-10-105-160-95'],
      ['Jun  4 04:12:01 web-1 CRON: (root) CMD (run-parts)', 'web-1'],
      ['Jun  4 04:12:01.123 web-1 app: fraction', 'web-1'],
      ['2024-05-01T10:00:00.123+02:00 db-2 postgres[77]: checkpoint', 'db-2'],
      ['2024-05-01 10:00:00 db-2 postgres: space between date and time', 'db-2'],
      ['Dec 10 06:55:46 web-3 disk full', 'web-3'],
      ['2024-05-01 10:00:00 INFO started in 3 s', undefined],
      ['Dec 10 06:55:46 LabSZ', undefined],
      ['error: Dec 10 06:55:46 LabSZ sshd[1]: not at the start', undefined],
      ['127.0.0.1 - - [17/May/2015:10:05:03 +0000] "GET / HTTP/1.1" 200 1', undefined],
      ['', undefined],
    ] as const)
      assert.equal(syslogHeaderHost(line), host, line);
  });

  const files = [
    ['loghub/OpenSSH/OpenSSH_2k.log', 'openssh'],
    ['loghub/Linux/Linux_2k.log', 'linux'],
  ] as const;
  const present = files.every(([f]) => existsSync(join(REAL_DATA, f)));
  if (!present) {
    it('fills the host of real syslog files (skipped: no real data; set SVC_REAL_DATA)', () => {});
    return;
  }

  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(() => e.close());

  /** The test's own reading: a line `Mmm dd hh:mm:ss host …` names its host as its fourth word. */
  const hostsOf = (lines: string[]) => {
    const m = new Map<string, number>();
    for (const l of lines) {
      const w = l.split(/ +/);
      const host = /^[A-Z][a-z]{2}$/.test(w[0]) && w.length > 4 ? w[3] : '';
      m.set(host, (m.get(host) ?? 0) + 1);
    }
    return [...m].sort(([a], [b]) => (a < b ? -1 : 1));
  };

  async function countByHost(index: string): Promise<[string, number][]> {
    const qs = new URLSearchParams({ q: `index=${index} | stats count by host`, env: E2E_ENV });
    const res = await fetch(`${e.srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${e.searchKey}` } });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { rows: [string, number][] }).rows;
  }

  for (const [file, name] of files) {
    it(`fills the host of ${file} sent as text to /api/ingest and to HEC raw`, async () => {
      const lines = realLines(file);
      const want = hostsOf(lines).filter(([h]) => h !== '');
      assert.ok(want.length > 0);
      const body = lines.join('\n') + '\n';
      const native = await fetch(`${e.srv.url}/api/ingest?index=${name}_native`, {
        method: 'POST',
        headers: { authorization: `Bearer ${e.token}`, 'content-type': 'text/plain' },
        body,
      });
      assert.equal(native.status, 200);
      const raw = await fetch(`${e.srv.url}/services/collector/raw?index=${name}_raw`, {
        method: 'POST',
        headers: { authorization: `Splunk ${e.token}` },
        body,
      });
      assert.equal(raw.status, 200);
      // `stats … by host` leaves out events without one: the lines of no header
      for (const index of [`${name}_native`, `${name}_raw`]) assert.deepEqual(await countByHost(index), want, index);
    });
  }

  it('keeps the host the request names', async () => {
    const res = await fetch(`${e.srv.url}/api/ingest?index=named&host=collector-1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'text/plain' },
      body: 'Dec 10 06:55:46 LabSZ sshd[24200]: hello\n',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await countByHost('named'), [['collector-1', 1]]);
  });
});
