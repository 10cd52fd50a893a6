/** GET /metrics from a server started with SVC_METRICS_LISTEN; answers the text as scraped. */
export async function scrape(srv: { metricsUrl?: string }): Promise<string> {
  if (!srv.metricsUrl) throw new Error('the server was started without SVC_METRICS_LISTEN');
  const res = await fetch(`${srv.metricsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${await res.text()}`);
  return res.text();
}

/**
 * The value of one series in a scrape, e.g. `sample(text, 'svc_ingest_events_total', { protocol:
 * 'native', env: 'default' })`; 0 when the series is absent (a counter not counted yet).
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:\\.|[^"\\])*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}
