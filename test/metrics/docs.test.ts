import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMetrics } from '../../src/metrics/registry.js';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'metrics.md');

/** The table of docs/metrics.md: name → "type | labels". */
function documented(): Map<string, string> {
  const rows = [...readFileSync(DOC, 'utf8').matchAll(/^\| `([a-z0-9_]+)` \| (\w+) \|([^|]*)\|/gm)];
  return new Map(rows.map((m) => [m[1], `${m[2]} | ${m[3].trim()}`]));
}

/** Every metric a server with a shared store and the metrics listener registers, described the same way. */
async function registered(): Promise<Map<string, string>> {
  const m = createMetrics({ runtime: true });
  m.watch({
    queue: () => ({ queued: 0, capacity: 1 }),
    wal: () => ({ bytes: 0, unsealedSegments: 0 }),
    blocksByEnv: () => new Map(),
    store: () => ({ syncLagSecs: 0, unpublishedBlocks: 0, cacheBytes: 0, cacheHits: 0, cacheMisses: 0 }),
  });
  const out = new Map<string, string>();
  for (const metric of m.registry.getMetricsAsArray()) {
    // prom-client's metric classes have get() and labelNames; its type for the array's items has neither
    const m2 = metric as unknown as { get(): Promise<{ type: string }>; labelNames?: string[] };
    const { type } = await m2.get();
    const labels = m2.labelNames ?? [];
    out.set(metric.name, `${type} | ${labels.join(', ')}`);
  }
  return out;
}

describe('docs/metrics.md', () => {
  it('lists every metric of the registry with its type and labels, and nothing else', async () => {
    const docs = documented();
    const reg = await registered();
    assert.ok(reg.size > 40, `the registry holds svc's and the runtime's metrics (${reg.size})`);
    // the runtime's Linux-only metrics may be absent elsewhere: only svc's must all be there
    for (const [name, desc] of reg) assert.equal(docs.get(name), desc, `${name} is documented as ${desc}`);
    for (const name of docs.keys())
      if (name.startsWith('svc_')) assert.ok(reg.has(name), `${name} is documented but not registered`);
  });
});
