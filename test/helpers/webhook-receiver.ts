import { createServer, type Server as HttpServer } from 'node:http';

/**
 * A webhook receiver: every request body by path; `/flaky` fails its first two calls, `/dead`
 * always; `/moved` redirects to `/alerts` (recorded as `/moved:redirected`).
 */
export class WebhookReceiver {
  readonly got = new Map<string, unknown[]>();
  private flaky = 0;
  private server: HttpServer | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const path = req.url ?? '/';
        if (path === '/dead' || (path === '/flaky' && ++this.flaky <= 2)) {
          this.push(path + ':refused', JSON.parse(body));
          res.writeHead(503).end('try later');
          return;
        }
        if (path === '/moved') {
          this.push('/moved:redirected', JSON.parse(body));
          res.writeHead(302, { location: '/alerts' }).end();
          return;
        }
        this.push(path, JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    const addr = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${addr.port}`;
  }

  private push(path: string, body: unknown): void {
    const list = this.got.get(path) ?? [];
    list.push(body);
    this.got.set(path, list);
  }

  /** The bodies `path` got so far, left in place. */
  peek(path: string): Record<string, unknown>[] {
    return (this.got.get(path) ?? []) as Record<string, unknown>[];
  }

  /** The bodies `path` got so far, forgotten after. */
  take(path: string): Record<string, unknown>[] {
    const list = (this.got.get(path) ?? []) as Record<string, unknown>[];
    this.got.delete(path);
    return list;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server?.close(() => r()) ?? r());
  }
}
