import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { decodeText } from '../../src/ingest/native/decode.js';
import { timeContext } from '../../src/events/timestamp.js';
import type { JsonValue } from '../../src/query/results.js';

/**
 * Fields found in the message at search time, over the real log files: each file is decoded as
 * text lines by the native ingest decoder (half sealed into blocks, half live), and the counts svc
 * gives by an extracted field are compared with the counts this test computes from the raw lines
 * with its own parsing (splitting on spaces, quotes and brackets; no regex of svc's). The files are
 * read in place, never copied.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const present = existsSync(join(DATA, 'loghub'));
if (!present) console.log(`# skipping extracted-field tests on real logs: no real data at ${DATA} (set SVC_REAL_DATA)`);

const FILES: Record<string, string> = {
  access: 'elastic-examples-apache/apache_access_combined.log',
  openssh: 'loghub/OpenSSH/OpenSSH_2k.log',
  linux: 'loghub/Linux/Linux_2k.log',
  mac: 'loghub/Mac/Mac_2k.log',
  thunderbird: 'loghub/Thunderbird/Thunderbird_2k.log',
  apache_error: 'loghub/Apache/Apache_2k.log',
  hdfs: 'loghub/HDFS/HDFS_2k.log',
  hadoop: 'loghub/Hadoop/Hadoop_2k.log',
  spark: 'loghub/Spark/Spark_2k.log',
  zookeeper: 'loghub/Zookeeper/Zookeeper_2k.log',
  openstack: 'loghub/OpenStack/OpenStack_2k.log',
  android: 'loghub/Android/Android_2k.log',
  windows: 'loghub/Windows/Windows_2k.log',
  bgl: 'loghub/BGL/BGL_2k.log',
  healthapp: 'loghub/HealthApp/HealthApp_2k.log',
  zeek_ssh: 'zeek-wrccdc-json/ssh.json',
};
const lines = (index: string) =>
  readFileSync(join(DATA, FILES[index]), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim().length > 0);

/** Counts of a value per line; lines giving undefined are left out (as svc leaves out null groups). */
function countBy(ls: string[], f: (l: string) => string | undefined): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of ls) {
    const v = f(l);
    if (v !== undefined) m.set(v, (m.get(v) ?? 0) + 1);
  }
  return m;
}

const words = (l: string) => l.trim().split(/\s+/);
const dash = (v: string | undefined) => (v === '-' || v === '' ? undefined : v);

/** The test's own reading of an access log line, by its quotes and spaces. */
function access(l: string): Record<string, string | undefined> {
  const q = l.split('"');
  const head = q[0].split(' ');
  const req = q[1].split(' ');
  const tail = q[2].trim().split(' ');
  const full = q.length === 7;
  return {
    clientip: head[0],
    user: dash(head[2]),
    method: req.length === 3 ? req[0] : undefined,
    uri: req.length === 3 ? req[1] : undefined,
    status: tail[0],
    bytes: dash(tail[1]),
    referer: full ? dash(q[3]) : undefined,
    useragent: full ? dash(q[5]) : undefined,
  };
}

/** A syslog tag word (`sshd[24200]:`, `sshd(pam_unix)[1]:`, `kernel:`) → program and pid; undefined unless it ends with ':'. */
function tag(word: string | undefined): { program?: string; pid?: string } {
  if (!word || !word.endsWith(':')) return {};
  const name = word.slice(0, -1);
  const cut = Math.min(...['(', '['].map((c) => (name.includes(c) ? name.indexOf(c) : name.length)));
  const open = name.lastIndexOf('[');
  const pid = open >= 0 && name.endsWith(']') ? name.slice(open + 1, -1) : undefined;
  return { program: name.slice(0, cut), pid: pid && /^\d+$/.test(pid) ? pid : undefined };
}

/**
 * The test's own key=value reader: every `=` with a key of [A-Za-z0-9_.-] right before it (not
 * glued to a longer name) and a value after it, quoted or up to a space, comma, semicolon, quote
 * or closing bracket; the first pair of a key wins; an empty value is none.
 */
function pairs(l: string): Map<string, string> {
  const out = new Map<string, string>();
  const keyChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_.-]/.test(c);
  for (let i = l.indexOf('='); i >= 0; i = l.indexOf('=', i + 1)) {
    let k = i;
    while (keyChar(l[k - 1])) k--;
    const key = l.slice(k, i);
    if (key.length === 0 || out.has(key)) continue;
    let v: string;
    if (l[i + 1] === '"' || l[i + 1] === "'") {
      const end = l.indexOf(l[i + 1], i + 2);
      if (end < 0) continue;
      v = l.slice(i + 2, end);
    } else {
      let e = i + 1;
      while (e < l.length && !' \t,;"\')]}>'.includes(l[e])) e++;
      v = l.slice(i + 1, e);
    }
    if (v.length > 0) out.set(key, v);
  }
  return out;
}

describe(
  'fields found in the message at search time, on real logs',
  { skip: present ? false : `no real data at ${DATA}` },
  () => {
    let st: TestStorage;
    let svc: QueryService;
    const stats = async (index: string, q: string) => {
      const r = await svc.search(SYSTEM_PRINCIPAL, { q: `index=${index} ${q}`, limit: 100_000 });
      return new Map(r.rows!.map((row) => [String(row[0]), Number(row[1])]));
    };
    const count = async (q: string) => (await svc.search(SYSTEM_PRINCIPAL, { q, limit: 1 })).meta.matched;

    before(async () => {
      st = await openStorage({ tuning: { merge: false } });
      svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
      const ctx = timeContext('UTC', st.clock.now());
      const decoded = Object.keys(FILES).map(
        (index) =>
          decodeText(
            Buffer.from(lines(index).join('\n')),
            { env: 'default', index, host: 'h', source: FILES[index], sourcetype: '', timeUs: st.clock.now() * 1000 },
            ctx,
          ).events,
      );
      // half of every file sealed into blocks, half left live
      await st.engine.writer.write(
        decoded.flatMap((evs) => evs.slice(0, evs.length >> 1)),
        { wait: true },
      );
      await st.engine.flush();
      await st.engine.writer.write(
        decoded.flatMap((evs) => evs.slice(evs.length >> 1)),
        { wait: true },
      );
    });
    after(() => st?.close());

    it('reads the Apache access log: status=404, counts by client, method, status and sums of bytes', async () => {
      const ls = lines('access');
      const rows = ls.map(access);
      assert.equal(await count('index=access status=404'), rows.filter((r) => r.status === '404').length);
      assert.equal(
        await count('index=access status=404 method=GET'),
        rows.filter((r) => r.status === '404' && r.method === 'GET').length,
      );
      assert.deepEqual(
        await stats('access', 'status=404 | stats count by clientip'),
        countBy(ls, (l) => (access(l).status === '404' ? access(l).clientip : undefined)),
      );
      assert.deepEqual(
        await stats('access', '| stats count by method'),
        countBy(ls, (l) => access(l).method),
      );
      assert.deepEqual(
        await stats('access', '| stats count by user'),
        countBy(ls, (l) => access(l).user),
      );
      const sums = await svc.search(SYSTEM_PRINCIPAL, {
        q: 'index=access | stats sum(bytes) as b, count(useragent) as ua by status',
        limit: 100,
      });
      for (const [status, b, ua] of sums.rows!) {
        const mine = rows.filter((r) => r.status === status);
        assert.equal(
          Number(b),
          mine.reduce((s, r) => s + Number(r.bytes ?? 0), 0),
          `bytes of ${String(status)}`,
        );
        assert.equal(
          Number(ua),
          mine.filter((r) => r.useragent !== undefined).length,
          `user agents of ${String(status)}`,
        );
      }
      assert.equal(await count('index=access bytes>100000'), rows.filter((r) => Number(r.bytes ?? 0) > 100000).length);
      assert.equal(
        await count('index=access useragent=*Googlebot*'),
        rows.filter((r) => r.useragent?.toLowerCase().includes('googlebot')).length,
      );
    });

    it("lists the access log's fields with their counts in the fields summary", async () => {
      const ls = lines('access');
      const fields = (await svc.fields(SYSTEM_PRINCIPAL, { q: 'index=access', top: 3 })).fields;
      for (const name of ['clientip', 'status', 'method', 'useragent']) {
        const mine = countBy(ls, (l) => access(l)[name]);
        const f = fields.find((x) => x.name === name);
        assert.ok(f, name);
        assert.equal(
          f.count,
          [...mine.values()].reduce((a, b) => a + b, 0),
          name,
        );
        const best = [...mine].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
        assert.deepEqual(
          f.top.map((t) => [String(t.value), t.count]),
          best,
          name,
        );
      }
    });

    for (const [index, at] of [
      ['openssh', 4],
      ['linux', 4],
      ['mac', 4],
      ['thunderbird', 8],
    ] as const) {
      it(`reads program and pid of the syslog lines of ${index}`, async () => {
        const ls = lines(index);
        const expect = countBy(ls, (l) => tag(words(l)[at]).program);
        assert.ok(expect.size > 0);
        assert.deepEqual(await stats(index, '| stats count by program'), expect);
        assert.deepEqual(
          await stats(index, '| stats count by pid'),
          countBy(ls, (l) => tag(words(l)[at]).pid),
        );
      });
    }

    it('counts program=sshd on every syslog-style file', async () => {
      const expect =
        (['openssh', 'linux', 'mac'] as const)
          .flatMap((i) => lines(i))
          .filter((l) => tag(words(l)[4]).program === 'sshd').length +
        lines('thunderbird').filter((l) => tag(words(l)[8]).program === 'sshd').length;
      assert.ok(expect > 1000);
      assert.equal(await count('program=sshd'), expect);
    });

    const LEVELS: [string, (l: string) => string | undefined][] = [
      ['apache_error', (l) => l.split('] [')[1]?.split(']')[0]],
      ['hdfs', (l) => words(l)[3]],
      ['hadoop', (l) => words(l)[2]],
      ['spark', (l) => words(l)[2]],
      ['zookeeper', (l) => words(l)[3]],
      ['openstack', (l) => words(l)[4]],
      ['android', (l) => words(l)[4]],
      ['windows', (l) => words(l)[2]],
      ['bgl', (l) => words(l)[8]],
    ];
    for (const [index, level] of LEVELS) {
      it(`reads the level of each ${index} line`, async () => {
        const expect = countBy(lines(index), level);
        assert.ok(expect.size > 0, index);
        assert.deepEqual(await stats(index, '| stats count by level'), expect);
      });
    }

    const COMPONENTS: [string, (l: string) => string | undefined][] = [
      ['hdfs', (l) => words(l)[4].replace(/:$/, '')],
      ['spark', (l) => words(l)[3].replace(/:$/, '')],
      ['openstack', (l) => words(l)[5]],
      ['windows', (l) => words(l)[3]],
      ['bgl', (l) => words(l)[7]],
      ['healthapp', (l) => l.split('|')[1]],
    ];
    for (const [index, component] of COMPONENTS) {
      it(`reads the component of each ${index} line`, async () => {
        assert.deepEqual(await stats(index, '| stats count by component'), countBy(lines(index), component));
      });
    }

    it('reads the pid of Android, OpenStack and HealthApp lines', async () => {
      assert.deepEqual(
        await stats('android', '| stats count by pid'),
        countBy(lines('android'), (l) => words(l)[2]),
      );
      assert.deepEqual(
        await stats('openstack', '| stats count by pid'),
        countBy(lines('openstack'), (l) => words(l)[3]),
      );
      assert.deepEqual(
        await stats('healthapp', '| stats count by pid'),
        countBy(lines('healthapp'), (l) => l.split('|')[2]),
      );
    });

    for (const [index, keys] of [
      ['linux', ['uid', 'euid', 'rhost', 'user', 'tty']],
      ['android', ['uid', 'flags', 'tag', 'name', 'lock']],
    ] as const) {
      it(`reads key=value pairs of ${index}: ${keys.join(', ')}`, async () => {
        const ls = lines(index);
        for (const k of keys) {
          const expect = countBy(ls, (l) => pairs(l).get(k));
          assert.ok(expect.size > 0, k);
          assert.deepEqual(await stats(index, `| stats count by ${k}`), expect, k);
        }
        const [k, v] = [keys[0], [...countBy(ls, (l) => pairs(l).get(keys[0])).keys()][0]];
        assert.equal(await count(`index=${index} ${k}=${v}`), ls.filter((l) => pairs(l).get(k) === v).length);
      });
    }

    it('reads JSON lines stored as text: top-level keys, dotted keys and booleans', async () => {
      const objs = lines('zeek_ssh').map((l) => JSON.parse(l) as Record<string, JsonValue>);
      const by = (k: string) => {
        const m = new Map<string, number>();
        for (const o of objs)
          if (o[k] !== undefined && o[k] !== null) m.set(String(o[k]), (m.get(String(o[k])) ?? 0) + 1);
        return m;
      };
      assert.deepEqual(await stats('zeek_ssh', '| stats count by auth_success'), by('auth_success'));
      assert.deepEqual(await stats('zeek_ssh', '| stats count by id.resp_p'), by('id.resp_p'));
      const [host] = [...by('id.orig_h')].sort((a, b) => b[1] - a[1])[0];
      assert.equal(await count(`index=zeek_ssh id.orig_h=${host}`), objs.filter((o) => o['id.orig_h'] === host).length);
      assert.equal(await count('index=zeek_ssh auth_success=true'), objs.filter((o) => o.auth_success === true).length);
    });
  },
);
