import { VERSION } from '../version.js';
import { CliError } from './errors.js';
import type { Target } from './session.js';

/**
 * The command line's HTTP client for svc's API: Bearer credential, JSON in and out, svc's error
 * shape (`{"error": {"code", "message", ...details}}`) turned into ApiError. The only module of
 * src/cli that reads HTTP statuses.
 */

export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    /** svc's error code (`invalid_query`, `rate_limited`…); `http_<status>` when the body is not svc's. */
    readonly code: string,
    readonly details: Record<string, unknown>,
    /** From Retry-After, when the answer had one. */
    readonly retryAfterSecs: number | undefined,
  ) {
    super(message, 1);
    this.name = 'ApiError';
  }

  /** The server is busy or briefly unavailable (429, 503): the same request may succeed later. */
  get retriable(): boolean {
    return this.status === 429 || this.status === 503;
  }

  get unauthenticated(): boolean {
    return this.status === 401;
  }
}

export type Query = Record<string, string | number | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with `contentType`. */
  body?: Buffer;
  contentType?: string;
  /** Replaces the client's credential for this request (an ingest token). */
  token?: string;
  signal?: AbortSignal;
}

/** Seconds of a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(v: string | null, nowMs = Date.now()): number | undefined {
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

function errorOf(status: number, text: string, retryAfter: string | null, hadToken: boolean): ApiError {
  let code = `http_${status}`;
  let message = text.trim().slice(0, 300) || `the server answered ${status}`;
  let details: Record<string, unknown> = {};
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } & Record<string, unknown> };
    if (body.error && typeof body.error.message === 'string') {
      const { code: c, message: m, ...rest } = body.error;
      code = typeof c === 'string' ? c : code;
      message = m;
      details = rest;
    }
  } catch {
    // not svc's JSON (a proxy's page): keep the text
  }
  if (status === 401 && !hadToken) message = `${message} (run svc login, or set SVC_TOKEN)`;
  else if (status === 401 && code !== 'invalid_credentials') message = `${message} (run svc login again)`;
  return new ApiError(message, status, code, details, parseRetryAfter(retryAfter));
}

export class ApiClient {
  constructor(readonly target: Target) {}

  get url(): string {
    return this.target.url;
  }

  /** Sends a request; resolves with the answer when it is a 2xx, else rejects with ApiError. */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const u = new URL(this.target.url + path);
    for (const [k, v] of Object.entries(opts.query ?? {}))
      if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'user-agent': `svc-cli/${VERSION}`, accept: 'application/json' };
    const token = opts.token ?? this.target.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.body) {
      headers['content-type'] = opts.contentType ?? 'application/octet-stream';
      // a Buffer is a Uint8Array; its buffer is never a SharedArrayBuffer here
      body = opts.body as Uint8Array<ArrayBuffer>;
    }
    let res: Response;
    try {
      res = await fetch(u, { method, headers, body, signal: opts.signal, redirect: 'manual' });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw e;
      throw unreachable(this.target.url, e);
    }
    if (res.ok) return res;
    throw errorOf(res.status, await res.text(), res.headers.get('retry-after'), token !== undefined);
  }

  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, path, opts);
    const text = await res.text();
    return (text.length > 0 ? JSON.parse(text) : undefined) as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.json<T>('GET', path, { query });
  }

  post<T>(path: string, json?: unknown): Promise<T> {
    return this.json<T>('POST', path, { json });
  }

  async delete(path: string): Promise<void> {
    await this.request('DELETE', path);
  }
}

/** A connection that was refused: nothing reached the server, so retrying cannot duplicate anything. */
export class UnreachableError extends CliError {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message, 1);
    this.name = 'UnreachableError';
  }
}

function unreachable(url: string, e: unknown): UnreachableError {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (e as Error).message;
  return new UnreachableError(`cannot reach svc at ${url}: ${why}`, cause?.code === 'ECONNREFUSED');
}
