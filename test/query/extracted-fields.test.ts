import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * Search-time extraction through the real store: which value wins (stored, then found in the
 * message), pruning by the token filter that never drops an event storing the field, the fields
 * syslog stores under other names, and the explicit pipes spath, kv/logfmt and extract. Answers
 * are checked against what the test computes from the events it wrote.
 */
const T0 = Date.UTC(2024, 4, 1);
const ev = (i: number, message: string, fields: LogEvent['fields'] = {}): LogEvent => ({
  timeUs: (T0 + i * 1000) * 1000,
  env: 'default',
  index: 'main',
  host: 'h',
  source: 's',
  sourcetype: '',
  message,
  fields,
});

// three blocks: codes in the text, no codes at all, codes stored as a field with a text lacking them
const IN_TEXT = Array.from({ length: 300 }, (_, i) =>
  ev(
    i,
    `req ${i} code=${i % 3 === 0 ? 'E4711' : 'E200'} user="user ${i % 4}" took ${i % 50}ms {"order":{"id":${i},"items":[${i % 5},${i % 7}]},"ok":${i % 2 === 0}}`,
  ),
);
const NO_CODE = Array.from({ length: 300 }, (_, i) => ev(1000 + i, `heartbeat ${i} all fine`));
const STORED = Array.from({ length: 300 }, (_, i) =>
  ev(2000 + i, `stored ${i} code=W1`, { code: i % 2 === 0 ? 'E4711' : 'X1', ms: i }),
);
// events as svc's syslog receiver stores them: program as `app`, the text without the tag
const SYSLOG = Array.from({ length: 40 }, (_, i) =>
  ev(3000 + i, `Accepted password for u${i}`, { app: i % 4 === 0 ? 'sshd' : 'cron', procid: String(100 + i) }),
);

describe('search-time extraction over the real store', () => {
  let st: TestStorage;
  let svc: QueryService;
  const search = (q: string, limit = 10_000) => svc.search(SYSTEM_PRINCIPAL, { q, limit });

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    for (const batch of [IN_TEXT, NO_CODE, STORED]) {
      await st.engine.writer.write(batch, { wait: true });
      await st.engine.flush();
    }
    await st.engine.writer.write(SYSLOG, { wait: true });
  });
  after(() => st.close());

  it("takes a stored value first and the message's otherwise, and prunes only blocks that store neither", async () => {
    const r = await search('code=E4711');
    const expect =
      IN_TEXT.filter((_, i) => i % 3 === 0).length + STORED.filter((e) => e.fields.code === 'E4711').length;
    assert.equal(r.meta.matched, expect);
    for (const e of r.events) assert.equal(e.fields.code, 'E4711', 'the events carry the value found');
    // the block without the token is never read; the one storing the field is, though its texts lack it
    assert.equal(r.meta.scanned, IN_TEXT.length + STORED.length + SYSLOG.length);
    assert.equal((await search('code=W1')).meta.matched, 0, 'a stored value hides the one in the text');
    assert.equal((await search('code!=E4711 code=*')).meta.matched, IN_TEXT.length + STORED.length - expect);
  });

  it('compares text found in the message as text: = is case-insensitive equality, < and > numeric', async () => {
    assert.equal((await search('code=e4711 req')).meta.matched, 100);
    assert.equal((await search('user="USER 1"')).meta.matched, IN_TEXT.filter((_, i) => i % 4 === 1).length);
    const counts = await search('req | stats count by user');
    assert.deepEqual(
      counts.rows,
      [0, 1, 2, 3].map((u) => [`user ${u}`, 75]),
    );
    assert.equal((await search('req ok=true')).meta.matched, 150, 'a JSON boolean reads as text');
  });

  it('keeps a stored numeric field numeric and sorts found numbers as numbers', async () => {
    const r = await search('stored | stats max(ms) as top, sum(ms) as total');
    assert.deepEqual(r.rows, [[299, STORED.reduce((s, e) => s + Number(e.fields.ms), 0)]]);
    const sorted = await search('req | sort -order.id | head 3 | table order.id');
    assert.deepEqual(
      sorted.rows!.map((x) => Number(x[0])),
      [299, 298, 297],
    );
  });

  it('reads program and pid from what the syslog receiver stored as app and procid', async () => {
    assert.equal((await search('program=sshd')).meta.matched, SYSLOG.filter((e) => e.fields.app === 'sshd').length);
    const r = await search('program=sshd | stats count by pid');
    assert.deepEqual(
      new Set(r.rows!.map((x) => x[0])),
      new Set(SYSLOG.filter((e) => e.fields.app === 'sshd').map((e) => e.fields.procid)),
    );
  });

  it('lists the fields found in the messages in the fields summary, a stored value first', async () => {
    const top = async (q: string, name: string) => {
      const f = (await svc.fields(SYSTEM_PRINCIPAL, { q })).fields.find((x) => x.name === name);
      return f && { count: f.count, top: f.top.map((t) => [t.value, t.count]) };
    };
    assert.deepEqual(await top('req', 'code'), {
      count: 300,
      top: [
        ['E200', 200],
        ['E4711', 100],
      ],
    });
    assert.deepEqual(await top('req', 'user'), { count: 300, top: [0, 1, 2, 3].map((u) => [`user ${u}`, 75]) });
    assert.deepEqual(await top('req', 'ok'), {
      count: 300,
      top: [
        ['false', 150],
        ['true', 150],
      ],
    });
    // the stored code wins over the code=W1 of the same events' text
    assert.deepEqual(await top('stored', 'code'), {
      count: 300,
      top: [
        ['E4711', 150],
        ['X1', 150],
      ],
    });
    assert.equal(await top('heartbeat', 'code'), undefined);
  });

  it('spath reads a path of the JSON in the message, positions 1-based and {} as a list', async () => {
    const r = await search(
      'req | spath output=first order.items{1} | spath output=all order.items{} | spath ok | stats count by first, ok',
    );
    const expect = new Map<string, number>();
    IN_TEXT.forEach((_, i) => expect.set(`${i % 5}|${i % 2 === 0}`, (expect.get(`${i % 5}|${i % 2 === 0}`) ?? 0) + 1));
    assert.deepEqual(new Map(r.rows!.map((x) => [`${String(x[0])}|${String(x[1])}`, x[2]])), expect);
    const list = await search('"req 7 code" | spath output=all order.items{} | table all');
    assert.deepEqual(list.rows, [[['2', '0']]]);
  });

  it('spath without a path reads every field later pipes use, from another field too', async () => {
    const r = await search('req | rex "(?<doc>\\{.*\\})" | spath input=doc | stats sum(order.id) as s by ok');
    assert.deepEqual(
      new Map(r.rows!.map((x) => [x[0], x[1]])),
      new Map([
        ['true', 150 * 149],
        ['false', 150 * 150],
      ]),
    );
  });

  it('kv and logfmt read key=value pairs of any field; a value found wins over a stored one', async () => {
    const a = await search('stored | kv | stats count by code');
    assert.deepEqual(a.rows, [['W1', 300]]);
    const b = await search(
      'req | rex "took (?<t>\\d+ms)" | eval pair="d=" . t | logfmt field=pair | stats count(d) as n',
    );
    assert.deepEqual(b.rows, [[300]]);
  });

  it('extract takes placeholders up to the next literal and the last one to the end', async () => {
    const r = await search(
      'req | extract "req <n> code=<code> user=\\"<_>\\" took <ms>ms <rest>" | stats count, sum(n) as s, max(ms) as top by code',
    );
    const groups = new Map<string, { n: number; s: number; top: number }>();
    IN_TEXT.forEach((_, i) => {
      const code = i % 3 === 0 ? 'E4711' : 'E200';
      const g = groups.get(code) ?? { n: 0, s: 0, top: 0 };
      groups.set(code, { n: g.n + 1, s: g.s + i, top: Math.max(g.top, i % 50) });
    });
    assert.deepEqual(new Map(r.rows!.map((x) => [x[0], { n: x[1], s: x[2], top: Number(x[3]) }])), groups);
    const rest = await search('"req 5 code" | extract "took <_>ms <rest>" | table rest');
    assert.equal(rest.rows![0][0], IN_TEXT[5].message.slice(IN_TEXT[5].message.indexOf('{')));
  });
});
