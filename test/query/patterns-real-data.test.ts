import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createEnv, createIngestToken } from '../helpers/auth.js';
import type { SearchResult } from '../../src/query/types.js';

/**
 * `patterns` against people: the loghub OpenSSH and HDFS samples are ingested as text lines through
 * POST /api/ingest, and svc's templates are compared with the ones loghub's authors wrote by hand
 * (`*_templates.csv`, each line's template in `*_structured.csv`). The files are read in place,
 * never copied.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const LOGHUB = join(DATA, 'loghub');
const present =
  existsSync(join(LOGHUB, 'OpenSSH', 'OpenSSH_2k.log_structured.csv')) &&
  existsSync(join(LOGHUB, 'HDFS', 'HDFS_2k.log_structured.csv'));
if (!present) console.log(`# skipping real-data patterns tests: no loghub data at ${LOGHUB} (set SVC_REAL_DATA)`);

const ENV = 'realp';

/**
 * A template as both sides are compared: svc's lines carry the header loghub's templates leave out
 * (`Dec 10 06:55:46 LabSZ sshd[24200]: `, which svc reads as `<*> LabSZ sshd[<*>]: `); values
 * joined by punctuation are one `<*>` (`/<*>:<*>` is `/<*>`) and a run of one masked word is one.
 */
function normalise(template: string, header?: RegExp): string {
  const words = (header ? template.replace(header, '') : template).split(/\s+/).filter((w) => w !== '');
  const masked = words.map((w) => w.replace(/<\*>(?:[.:/_@,+-]*<\*>)+/g, '<*>'));
  return masked.filter((w, i) => !(i > 0 && w === masked[i - 1] && w.includes('<*>'))).join(' ');
}

/** svc's template `t` fits the human one `h`: `h`'s `<*>` may stand for any text of `t`, or word by word, both have a `<*>` where they differ. */
function fits(h: string, t: string): boolean {
  const re = new RegExp(
    `^${h
      .split('<*>')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*?')}$`,
  );
  if (re.test(t)) return true;
  const hw = h.split(' ');
  const tw = t.split(' ');
  return (
    hw.length === tw.length &&
    hw.every((w, i) => w === tw[i] || w === '<*>' || (w.includes('<*>') && tw[i].includes('<*>')))
  );
}

interface Human {
  template: string;
  count: number;
}

/** loghub's templates of a data set with how many lines each has. */
function humanTemplates(name: string): Human[] {
  const dir = join(LOGHUB, name);
  const templates = parseCsv<{ EventId: string; EventTemplate: string }>(
    readFileSync(join(dir, `${name}_2k.log_templates.csv`)),
    { columns: true },
  );
  const lines = parseCsv<{ EventId: string }>(readFileSync(join(dir, `${name}_2k.log_structured.csv`)), {
    columns: true,
  });
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l.EventId, (counts.get(l.EventId) ?? 0) + 1);
  return templates.map((t) => ({ template: t.EventTemplate, count: counts.get(t.EventId) ?? 0 }));
}

describe(
  'patterns on real logs, against the templates people wrote',
  { skip: present ? false : `no loghub data at ${LOGHUB}` },
  () => {
    let srv: TestServer;
    let token: string;
    const found = new Map<string, Map<string, number>>();

    async function patterns(index: string): Promise<SearchResult> {
      const qs = new URLSearchParams({ q: '* | patterns', env: ENV, index });
      const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return JSON.parse(text) as SearchResult;
    }

    async function ingest(index: string, file: string): Promise<void> {
      const ingestToken = await createIngestToken(srv, { env: ENV });
      const res = await fetch(`${srv.url}/api/ingest?index=${index}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ingestToken}`, 'content-type': 'text/plain' },
        body: readFileSync(join(LOGHUB, file)),
      });
      const answer = (await res.json()) as { ingested: number; errors: number };
      assert.equal(res.status, 200, JSON.stringify(answer));
      assert.equal(answer.errors, 0);
    }

    /** svc's templates of an index, normalised, with their counts (two templates may normalise alike: added). */
    async function svcTemplates(index: string, header: RegExp): Promise<Map<string, number>> {
      const r = await patterns(index);
      const out = new Map<string, number>();
      for (const [pattern, count] of r.rows!) {
        const n = normalise(String(pattern), header);
        out.set(n, (out.get(n) ?? 0) + Number(count));
      }
      return out;
    }

    /**
     * Share of the lines whose human template svc gives with the same count: with the same text
     * (`exact`), or a text that fits it (`matching`): more precise where people wrote `<*>` for what
     * is constant in the sample (`/<*>/part-<*>` for `/user/root/<*>/part-<*>`, a user name in a
     * one-line template), or a value's frame cut elsewhere (`/<*>/blk_<*>` for
     * `/mnt/hadoop/dfs/data/current/<*>`).
     */
    function agreement(
      humans: Human[],
      svc: Map<string, number>,
    ): { exact: number; matching: number; missed: string[] } {
      const total = humans.reduce((n, h) => n + h.count, 0);
      let exact = 0;
      let matching = 0;
      const missed: string[] = [];
      for (const h of humans) {
        const text = normalise(h.template);
        if (svc.get(text) === h.count) exact += h.count;
        if ([...svc].some(([t, n]) => n === h.count && fits(text, t))) matching += h.count;
        else missed.push(`${h.template} (people: ${h.count}, svc: ${svc.get(text) ?? 'none'})`);
      }
      return { exact: exact / total, matching: matching / total, missed };
    }

    before(async () => {
      srv = await startTestServer();
      await createEnv(srv, ENV);
      await ingest('ssh', 'OpenSSH/OpenSSH_2k.log');
      await ingest('hdfs', 'HDFS/HDFS_2k.log');
      token = await adminToken(srv);
      found.set('ssh', await svcTemplates('ssh', /^<\*> LabSZ sshd\[<\*>\]: /));
      found.set('hdfs', await svcTemplates('hdfs', /^<\*> (?:INFO|WARN|ERROR) \S+: /));
    });
    after(async () => {
      await srv?.close();
    });

    it('counts every line once', async () => {
      for (const index of ['ssh', 'hdfs']) {
        const r = await patterns(index);
        assert.equal(
          r.rows!.reduce((n, row) => n + Number(row[1]), 0),
          r.meta.matched,
        );
        assert.equal(r.meta.matched, 2000);
      }
    });

    const named: [string, string, string[]][] = [
      [
        'ssh',
        'OpenSSH',
        [
          'Failed password for <*> from <*> port <*> ssh2',
          'Failed password for invalid user <*> from <*> port <*> ssh2',
          'Received disconnect from <*>: <*>: Bye Bye [preauth]',
          'Invalid user <*> from <*>',
          'reverse mapping checking getaddrinfo for <*> [<*>] failed - POSSIBLE BREAK-IN ATTEMPT!',
          'pam_unix(sshd:auth): authentication failure; logname= uid=<*> euid=<*> tty=ssh ruser= rhost=<*> user=<*>',
          'Connection closed by <*> [preauth]',
        ],
      ],
      [
        'hdfs',
        'HDFS',
        [
          'Receiving block blk_<*> src: /<*>:<*> dest: /<*>:<*>',
          'PacketResponder <*> for block blk_<*> terminating',
          'BLOCK* NameSystem.addStoredBlock: blockMap updated: <*>:<*> is added to blk_<*> size <*>',
          'Received block blk_<*> of size <*> from /<*>',
          'BLOCK* NameSystem.delete: blk_<*> is added to invalidSet of <*>:<*>',
          'Verification succeeded for blk_<*>',
        ],
      ],
    ];
    for (const [index, name, templates] of named) {
      it(`finds the ${name} templates people name, each with the count of its lines`, () => {
        const humans = new Map(humanTemplates(name).map((h) => [h.template, h.count]));
        for (const t of templates) {
          const count = humans.get(t);
          assert.ok(count !== undefined && count >= 10, `${t} is a template of ${name}'s people with some lines`);
          assert.equal(found.get(index)!.get(normalise(t)), count, t);
        }
      });
    }

    // measured: OpenSSH exact 99.75 % (three one-line templates keep their user name, and people
    // left `ssh2` out of one), matching 100 %; HDFS exact 81.1 % (two path templates written
    // differently), matching 100 %
    for (const [index, name, exact] of [
      ['ssh', 'OpenSSH', 0.99],
      ['hdfs', 'HDFS', 0.8],
    ] as const) {
      it(`agrees with people on the template of nearly every ${name} line`, (t) => {
        const a = agreement(humanTemplates(name), found.get(index)!);
        t.diagnostic(
          `${name}: exact ${(a.exact * 100).toFixed(2)} %, matching ${(a.matching * 100).toFixed(2)} %${a.missed.length ? `; missed: ${a.missed.join('; ')}` : ''}`,
        );
        assert.ok(a.exact >= exact, `exact ${a.exact}`);
        assert.ok(a.matching >= 0.99, `matching ${a.matching}: ${a.missed.join('; ')}`);
      });
    }
  },
);
