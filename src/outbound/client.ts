import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedRange } from './address.js';
import { allowsAddress, allowsHost, type AllowList } from './allow-list.js';
import { OutboundFailure, OutboundRefused } from './errors.js';

// The one HTTP client for calls svc makes on its own (monitor webhooks, the LLM provider, SAML
// metadata): a destination must be a public address unless the operator allowed it; the address
// is checked as DNS answers it, inside the connection's own lookup, so the socket goes to exactly
// the address that was checked (a name that answers differently a moment later — DNS rebinding —
// gains nothing). Redirects are never followed, every call has a timeout, answers a size cap.
// docs/outbound.md.

/** Name resolution as dns.lookup with `all: true`; tests give their own to play DNS rebinding. */
export type Resolver = (host: string, family: number | undefined) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host, family) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, family: family ?? 0 }, (e, addrs) => (e ? reject(e) : resolve(addrs))),
  );

export interface CallLimits {
  /** The longest wait for the connection, and then between two pieces of the answer. */
  idleTimeoutMs: number;
  /** The most bytes of an answer's body read; reading more fails with `too_large`. */
  maxBytes: number;
  /**
   * Origins (`scheme://host:port`) the operator named in svc's environment for this purpose
   * (SVC_LLM_URL, SVC_SAML_IDP_METADATA): their addresses are not checked.
   */
  trusted?: readonly string[];
}

/** What a call may carry (a subset of fetch's RequestInit: svc sends text or bytes only). */
export interface OutboundInit {
  method?: string;
  headers?: HeadersInit;
  body?: string | Uint8Array | ArrayBuffer | null;
  signal?: AbortSignal | null;
}

/** Safe to share: holds no connection between calls. */
export class OutboundClient {
  constructor(
    private readonly allow: AllowList,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /**
   * Checks `url` as a call would (scheme, then the addresses its host has now), without connecting:
   * for destinations people save (a monitor's webhook), so a refused one is refused when saved.
   * A name that does not resolve now passes: the call checks again when it is made.
   */
  async check(url: string): Promise<void> {
    const u = parseTarget(url);
    const host = bareHost(u.hostname);
    if (isIP(host)) return this.judge(host, host);
    let addrs: LookupAddress[];
    try {
      addrs = await this.resolve(host, undefined);
    } catch {
      return;
    }
    for (const a of addrs) this.judge(host, a.address);
  }

  /**
   * One HTTP call, answered as fetch would answer it (status, headers, a streamed body), except
   * that a 3xx is handed back as it is, never followed. Rejects with OutboundRefused for a
   * destination svc may not reach, OutboundFailure for a timeout or an answer over the cap, the
   * signal's reason when the signal aborts it, and the socket's error (ECONNREFUSED, …) otherwise.
   */
  fetch(url: string | URL, init: OutboundInit, limits: CallLimits): Promise<Response> {
    return new Promise((resolve, reject) => {
      const u = parseTarget(String(url));
      const signal = init.signal ?? undefined;
      // an abort's reason is an Error: svc aborts with one (AbortSignal's default is one too)
      if (signal?.aborted) return reject(signal.reason as Error);
      const host = bareHost(u.hostname);
      const trusted = limits.trusted?.includes(u.origin) ?? false;
      if (!trusted && isIP(host)) this.judge(host, host);
      const body = bodyBytes(init.body);
      const req = (u.protocol === 'https:' ? https : http).request({
        protocol: u.protocol,
        hostname: host,
        port: u.port || undefined,
        path: `${u.pathname}${u.search}`,
        method: (init.method ?? 'GET').toUpperCase(),
        headers: requestHeaders(init.headers, body),
        auth: u.username ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined,
        // one connection per call: a pooled socket would outlive the check it was opened under
        agent: false,
        timeout: limits.idleTimeoutMs,
        lookup: trusted ? undefined : this.pinnedLookup(host),
      });
      const abort = () => req.destroy(signal?.reason as Error | undefined);
      signal?.addEventListener('abort', abort, { once: true });
      req.on('timeout', () =>
        req.destroy(new OutboundFailure('timeout', `no answer within ${limits.idleTimeoutMs} ms`)),
      );
      req.on('error', (e) => {
        signal?.removeEventListener('abort', abort);
        reject(e);
      });
      req.on('response', (res) => {
        res.on('close', () => signal?.removeEventListener('abort', abort));
        try {
          resolve(toResponse(res, u, limits.maxBytes, init.method));
        } catch (e) {
          res.destroy();
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- toResponse throws OutboundFailure
          reject(e);
        }
      });
      req.end(body);
    });
  }

  /** fetch() bound to `limits`, in the shape clients that take a custom fetch want (openai). */
  fetcher(limits: CallLimits): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
    return (input, init) => {
      if (input instanceof Request) throw new Error('BUG: the outbound client takes a URL and an init, not a Request');
      const body = init?.body;
      if (
        body !== undefined &&
        body !== null &&
        typeof body !== 'string' &&
        !(body instanceof Uint8Array) &&
        !(body instanceof ArrayBuffer)
      ) {
        throw new Error('BUG: the outbound client sends text or bytes only');
      }
      return this.fetch(input, { method: init?.method, headers: init?.headers, body, signal: init?.signal }, limits);
    };
  }

  /**
   * The connection's lookup: resolves `host` once, refuses the whole name if any of its addresses
   * is refused (a name with one public and one private address is not a webhook), and hands the
   * socket the addresses it checked.
   */
  private pinnedLookup(host: string): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname, options.family as number | undefined)
        .then((addrs) => {
          if (addrs.length === 0) throw new OutboundFailure('unreachable', `${hostname} has no address`);
          for (const a of addrs) this.judge(host, a.address);
          if (options.all) callback(null, addrs);
          else callback(null, addrs[0].address, addrs[0].family);
        })
        .catch((e: NodeJS.ErrnoException) => callback(e, ''));
    };
  }

  /** Throws OutboundRefused unless `ip`, an address of `host`, is public or allowed. */
  private judge(host: string, ip: string): void {
    if (allowsHost(this.allow, host) || allowsAddress(this.allow, ip)) return;
    const range = refusedRange(ip);
    if (range) throw new OutboundRefused(host, ip, range);
  }
}

function parseTarget(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OutboundFailure('invalid_url', 'not a URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new OutboundFailure('invalid_url', `not an http(s) URL (${u.protocol})`);
  return u;
}

/** A URL's host name as sockets want it: `[::1]` → `::1`. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

function bodyBytes(body: OutboundInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function requestHeaders(init: HeadersInit | undefined, body: Buffer | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((v, k) => (out[k] = v));
  // fetch would decompress; this client reads the bytes as they come, so it asks for them plain
  delete out['accept-encoding'];
  if (body) out['content-length'] = String(body.length);
  return out;
}

/** Statuses whose answer has no body, which a Response refuses to be built with. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function toResponse(res: IncomingMessage, u: URL, maxBytes: number, method: string | undefined): Response {
  // an answer read by nobody may still fail (the timeout, the cap): that must not be an uncaught error
  res.on('error', () => undefined);
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) throw new OutboundFailure('invalid_answer', `answered with status ${status}`);
  const empty = NULL_BODY.has(status) || method?.toUpperCase() === 'HEAD';
  if (empty) res.resume();
  const response = new Response(empty ? null : cappedBody(res, maxBytes), {
    status,
    statusText: res.statusMessage ?? '',
    headers,
  });
  Object.defineProperty(response, 'url', { value: u.href });
  return response;
}

/** The body as a web stream that fails with `too_large` once more than `maxBytes` arrived. */
function cappedBody(res: IncomingMessage, maxBytes: number): ReadableStream<Uint8Array> {
  const chunks = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let seen = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) return controller.close();
        const value = next.value;
        seen += value.length;
        if (seen > maxBytes) {
          res.destroy();
          return controller.error(new OutboundFailure('too_large', `the answer is larger than ${maxBytes} bytes`));
        }
        controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.length));
      } catch (e) {
        controller.error(e);
      }
    },
    cancel() {
      res.destroy();
    },
  });
}
