import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startE2E, E2E_ENV, type E2E } from '../helpers/e2e.js';
import type { EventJson } from '../../../src/query/types.js';

/**
 * The time of a text line on native text/plain and HEC raw, with lines of unrelated real files side
 * by side and the syslog headers stripped from one of them, as syslog-ng's http() destination with
 * a `$MSG` template sends them. Each line must carry its own leading time, its parent's time when it
 * continues a stack trace, or the arrival time; the test works the expected times out itself from
 * the files' documented formats, not through svc's parser. The files are read in place.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LOGHUB = join(resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real'), 'loghub');
const FILES = ['Linux', 'Apache', 'Zookeeper'].map((n) => join(LOGHUB, n, `${n}_2k.log`));
const present = FILES.every((f) => existsSync(f));
if (!present) console.log(`# skipping text-line time tests: no loghub data at ${LOGHUB} (set SVC_REAL_DATA)`);

/** What a line's time must be: its own (µs), or the arrival time of its request. */
type Want = { us: number } | 'arrival';

/** A file's lines without their CRs (Linux_2k ends some lines in CRLF). */
const lines = (f: string) =>
  readFileSync(f, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `[Sun Dec 04 04:47:44 2005] [notice] …` (zoneless, read as UTC as svc's default SVC_TIMEZONE). */
function apacheTime(l: string): number {
  const m = /^\[\w{3} (\w{3}) (\d\d) (\d\d):(\d\d):(\d\d) (\d{4})\]/.exec(l);
  assert.ok(m, l);
  return Date.UTC(+m[6], MONTHS.indexOf(m[1]), +m[2], +m[3], +m[4], +m[5]) * 1000;
}

/** `2015-07-29 17:41:44,747 - INFO …`. */
function zookeeperTime(l: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) /.exec(l);
  assert.ok(m, l);
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]) * 1000;
}

/** syslog-ng's `$MSG` of a Linux syslog line: the text after `Mmm dd hh:mm:ss host tag[pid]:`. */
function strippedSyslog(l: string): string | undefined {
  return /^\w{3} +\d+ [\d:]{8} \S+ [^ ]+:\s+(\S.*)$/.exec(l)?.[1];
}

/** A Java stack trace of a Zookeeper-style failure; every line unique to trace k. */
function trace(k: number): string[] {
  return [
    `java.io.IOException: Connection reset by peer (trace ${k})`,
    `\tat sun.nio.ch.FileDispatcherImpl.read0(Native Method)`.replace('read0', `read${k}`),
    `\tat org.apache.zookeeper.server.NIOServerCnxn.doIO(NIOServerCnxn.java:${1000 + k})`,
    `Caused by: java.net.SocketException: Broken pipe (trace ${k})`,
    `\t... ${k + 3} more`,
  ];
}

/** The mixed body and what each line's time must be, in order. */
function mixedBody(): { body: string; want: [string, Want][] } {
  const linux = lines(FILES[0])
    .map(strippedSyslog)
    .filter((l): l is string => l !== undefined);
  const apache = lines(FILES[1]);
  const zk = lines(FILES[2]);
  const want: [string, Want][] = [];
  let parent: Want = 'arrival';
  const add = (l: string, w: Want) => {
    want.push([l, w]);
    parent = w;
  };
  // a trace before any record: nothing to continue, so arrival
  for (const t of trace(0)) add(t, 'arrival');
  for (let i = 0, a = 0, z = 0, k = 1; i < linux.length; i++) {
    add(linux[i], 'arrival');
    if (i % 4 === 1 && a < apache.length) add(apache[a], { us: apacheTime(apache[a++]) });
    if (i % 4 === 3 && z < zk.length) add(zk[z], { us: zookeeperTime(zk[z++]) });
    // a stack trace after a Zookeeper line, and one after a line without a time of its own
    if (i % 40 === 3 || i % 40 === 20) for (const t of trace(k++)) add(t, parent);
  }
  return { body: want.map(([l]) => l).join('\n') + '\n', want };
}

async function exportIndex(e: E2E, index: string): Promise<EventJson[]> {
  const qs = new URLSearchParams({
    q: '*',
    env: E2E_ENV,
    index,
    from: '1970-01-01T00:00:00Z',
    to: new Date(Date.now() + 86_400_000).toISOString(),
    format: 'ndjson',
  });
  const res = await fetch(`${e.srv.url}/api/export?${qs}`, { headers: { authorization: `Bearer ${e.searchKey}` } });
  assert.equal(res.status, 200);
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EventJson);
}

const us = (iso: string) => Date.parse(iso) * 1000 + Number(iso.slice(23, 26));

/** Every stored event has the time its line must have; as many events as lines. */
function check(events: EventJson[], want: [string, Want][], fromUs: number, toUs: number): void {
  const byMessage = new Map<string, { want: Want; n: number }>();
  for (const [l, w] of want) {
    const seen = byMessage.get(l);
    if (seen) {
      assert.deepEqual(seen.want, w, `the same line twice must want the same time: ${l}`);
      seen.n++;
    } else byMessage.set(l, { want: w, n: 1 });
  }
  assert.equal(events.length, want.length);
  const wrong: string[] = [];
  for (const ev of events) {
    const w = byMessage.get(ev.message);
    assert.ok(w, `an event no line sent: ${JSON.stringify(ev.message)}`);
    w.n--;
    const t = us(ev.time);
    const ok = w.want === 'arrival' ? t >= fromUs && t <= toUs : t === w.want.us;
    if (!ok) wrong.push(`${ev.time} for ${JSON.stringify(ev.message.slice(0, 80))}`);
  }
  assert.equal(
    wrong.length,
    0,
    `${wrong.length} lines with another line's time or a date from their text, e.g.\n${wrong.slice(0, 5).join('\n')}`,
  );
  assert.ok(
    [...byMessage.values()].every((v) => v.n === 0),
    'each line stored once',
  );
}

describe(
  'the time of text lines from unrelated files, on native text and HEC raw',
  { skip: present ? false : `no loghub data at ${LOGHUB}` },
  () => {
    let e: E2E;
    let mixed: ReturnType<typeof mixedBody>;
    before(async () => {
      e = await startE2E();
      mixed = mixedBody();
    });
    after(() => e.close());

    it("gives each line of a native text body its own time, its parent's, or the arrival time", async () => {
      const from = Date.now() * 1000;
      const res = await fetch(`${e.srv.url}/api/ingest?index=mixed`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', authorization: `Bearer ${e.token}` },
        body: mixed.body,
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { ingested: number }).ingested, mixed.want.length);
      check(await exportIndex(e, 'mixed'), mixed.want, from, Date.now() * 1000);
    });

    it('gives each line of a HEC raw body the same times', async () => {
      const from = Date.now() * 1000;
      const res = await fetch(`${e.srv.url}/services/collector/raw?index=mixedraw`, {
        method: 'POST',
        headers: { authorization: `Splunk ${e.token}` },
        body: mixed.body,
      });
      assert.equal(res.status, 200, await res.text());
      check(await exportIndex(e, 'mixedraw'), mixed.want, from, Date.now() * 1000);
    });

    it('does not read a date inside the text of a HEC raw line as its time', async () => {
      const inside = lines(FILES[0])
        .map(strippedSyslog)
        .filter((l): l is string => l !== undefined && / at \w{3} \w{3} +\d+ [\d:]{8} \d{4}\s*$/.test(l));
      assert.ok(inside.length > 100, 'Linux_2k has its `connection from … at Fri Jun 17 07:07:00 2005` lines');
      const from = Date.now() * 1000;
      const res = await fetch(`${e.srv.url}/services/collector/raw?index=inside`, {
        method: 'POST',
        headers: { authorization: `Splunk ${e.token}` },
        body: inside.join('\n'),
      });
      assert.equal(res.status, 200, await res.text());
      check(
        await exportIndex(e, 'inside'),
        inside.map((l) => [l, 'arrival']),
        from,
        Date.now() * 1000,
      );
    });
  },
);
