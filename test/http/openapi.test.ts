import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { createIngestToken } from '../helpers/auth.js';
import { openApiPath } from '../../src/http/schema/openapi.js';
import { referencePage } from '../../scripts/api-reference.js';

type Operation = { summary?: string; tags?: string[]; security?: unknown[]; responses: Record<string, unknown> };
type Doc = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
/** Where svc's own and the compatibility routes live; a mention of another path (an IdP's /login) is not svc's. */
const SVC_PATH = /^\/(api|services|loki|v1|mcp|ui|_bulk)\b/;

/** `GET /api/...`-like mentions in the README and docs/*.md: `GET|POST /api/fields`, `POST /api/monitors/{id}/enable|disable`. */
function mentionedRoutes(): Set<string> {
  const files = [
    'README.md',
    ...readdirSync('docs')
      .filter((f) => f.endsWith('.md') && f !== 'api-reference.md')
      .map((f) => `docs/${f}`),
  ];
  const out = new Set<string>();
  const mention =
    /\b((?:GET|POST|PUT|PATCH|DELETE|HEAD)(?:[|/](?:GET|POST|PUT|PATCH|DELETE|HEAD))*) +(\/[^\s`)"',;?…]*)(…?)/g;
  for (const f of files) {
    for (const [, methods, raw, more] of readFileSync(f, 'utf8').matchAll(mention)) {
      // "/api/monitors…" stands for the routes under it: "…" matches the rest
      const path = raw.replace(/[.:]+$/, '').replace(/<([^>]+)>/g, '{$1}') + more;
      if (!SVC_PATH.test(path)) continue;
      // "…/{id}/enable|disable" names two routes
      const alt = /^(.*\/)([^/]+\|[^/]+)$/.exec(path);
      const paths = alt ? alt[2].split('|').map((last) => alt[1] + last) : [path];
      for (const m of methods.split(/[|/]/)) for (const p of paths) out.add(`${m} ${p}`);
    }
  }
  return out;
}

/** The routes Fastify registered, from its own printRoutes tree (not from svc's recorder). */
function registeredRoutes(tree: string): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    const parent = depth > 0 ? stack[depth - 1] : '';
    // the tree prints `/ui/*` as "ui" with a child "*"
    stack[depth] = parent + (m[2] === '*' && !parent.endsWith('/') ? '/*' : m[2]);
    for (const method of (m[3] ?? '').split(', ').filter((x) => METHODS.includes(x)))
      out.add(`${method} ${openApiPath(stack[depth])}`);
  }
  return out;
}

function documented(doc: Doc): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of Object.keys(item)) out.add(`${method.toUpperCase()} ${path}`);
  return out;
}

/** Does `mention` (a concrete or templated path) name a documented route? `{x}` matches one segment. */
function matches(doc: Set<string>, mention: string): boolean {
  for (const route of doc) {
    if (route === mention) return true;
    const [method, path] = mention.split(' ');
    if (path.endsWith('…') && route.startsWith(`${method} ${path.slice(0, -1)}`)) return true;
    const re = new RegExp('^' + route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '$');
    if (re.test(mention)) return true;
  }
  return false;
}

describe('GET /api/openapi.json', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  const getDoc = async (): Promise<Doc> => {
    const res = await fetch(`${srv.url}/api/openapi.json`);
    assert.equal(res.status, 200, 'served without credentials');
    return (await res.json()) as Doc;
  };

  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await getDoc();
    const v = new Validator();
    const r = await v.validate(doc);
    assert.equal(v.version, '3.1');
    assert.deepEqual(r.errors, undefined);
    assert.equal(r.valid, true);
  });

  it('lists every route the README and docs mention', async () => {
    const doc = documented(await getDoc());
    const mentions = mentionedRoutes();
    assert.ok(mentions.size > 30, `found only ${mentions.size} mentions`);
    const missing = [...mentions].filter((m) => !matches(doc, m));
    assert.deepEqual(missing, []);
  });

  it('documents exactly the routes Fastify registered, none missing and none invented', async () => {
    const doc = documented(await getDoc());
    const registered = registeredRoutes(srv.app.printRoutes({ commonPrefix: false }));
    // Fastify adds a HEAD beside every GET by itself; the document keeps only the HEADs routes declare
    const withoutAutoHead = [...registered].filter((r) => !r.startsWith('HEAD ') || doc.has(r));
    assert.deepEqual([...doc].filter((r) => !registered.has(r)).sort(), [], 'documented but not registered');
    assert.deepEqual(withoutAutoHead.filter((r) => !doc.has(r)).sort(), [], 'registered but not documented');
    assert.ok(doc.size > 80);
  });

  it('says the auth of each route and the error body', async () => {
    const doc = await getDoc();
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item))
        assert.ok(
          op.summary && op.tags?.length && op.security,
          `${method} ${path} says what it does and who may call it`,
        );
    assert.deepEqual(doc.paths['/api/version'].get.security, []);
    assert.deepEqual(doc.paths['/api/admin/users'].get.security, [
      { session: [] },
      { sessionCookie: [] },
      { apiKey: [] },
    ]);
    assert.ok(doc.paths['/api/ingest'].post.security?.some((s) => 'ingestToken' in (s as object)));
    assert.ok(doc.paths['/services/collector/event'].post.security?.some((s) => 'ingestSplunk' in (s as object)));
    assert.deepEqual(doc.paths['/api/search'].get.responses['400'], {
      description:
        'Bad Request (invalid_input, invalid_json, invalid_query, invalid_time, unknown_environment, reserved_name, unsupported_media_type, request_cancelled)',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  });

  it('is what docs/api-reference.md says (npm run docs:api writes it)', async () => {
    const page = await referencePage((await getDoc()) as Parameters<typeof referencePage>[0]);
    assert.equal(readFileSync('docs/api-reference.md', 'utf8'), page, 'run npm run docs:api and commit the page');
  });

  describe('an invalid parameter answers 400 naming it', () => {
    const cases: [string, string, string, RegExp][] = [
      [
        'search',
        'GET',
        '/api/search?q=*&limit=abc',
        /^query parameter "limit" must be an integer from 1 to 10000, not "abc"$/,
      ],
      ['search, repeated', 'GET', '/api/search?env=a&env=b', /^query parameter "env" must be given once/],
      ['histogram', 'GET', '/api/histogram?buckets=0', /^query parameter "buckets" must be an integer from 1 to 1000/],
      ['export', 'GET', '/api/export?format=xml', /^query parameter "format" must be "csv" or "ndjson"/],
      ['admin lookups', 'GET', '/api/admin/lookups/t?rows=lots', /^query parameter "rows"/],
      ['admin path', 'POST', '/api/admin/nodes/a%20b/retire', /^path parameter "id": letters, digits, _ and - only/],
    ];
    for (const [what, method, path, message] of cases) {
      it(what, async () => {
        const res = await fetch(`${srv.url}${path}`, { method, headers: { authorization: `Bearer ${admin}` } });
        const body = (await res.json()) as { error: { code: string; message: string; field?: string } };
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(body.error.code, 'invalid_input');
        assert.match(body.error.message, message);
        assert.ok(body.error.field && body.error.message.includes(`"${body.error.field}"`));
      });
    }

    it('native ingest', async () => {
      const token = await createIngestToken(srv, { env: 'default' });
      const res = await fetch(`${srv.url}/api/ingest?index=a&index=b`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body: '{"message":"x"}\n',
      });
      const body = (await res.json()) as { error: { code: string; message: string; field?: string } };
      assert.equal(res.status, 400);
      assert.match(body.error.message, /^query parameter "index" must be given once/);
      assert.equal(body.error.field, 'index');
    });
  });
});
