/**
 * The one way the UI talks to svc. Every call carries the session cookie and the
 * `X-Svc-Request` header, which svc requires of cookie-authenticated writes (a cross-site form
 * cannot send it). A 401 sends the browser to the login page, which brings it back afterwards.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
  /** Where the query parser found the problem, when it did. */
  get position(): number | undefined {
    return typeof this.details.position === 'number' ? this.details.position : undefined;
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function queryString(q: Query): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

let onUnauthenticated: () => void = () => {
  const here = location.pathname + location.search;
  if (!location.pathname.startsWith('/ui/login')) location.assign(`/ui/login?next=${encodeURIComponent(here)}`);
};

/** Tests and the login page replace what a 401 does. */
export function setUnauthenticatedHandler(fn: () => void): void {
  onUnauthenticated = fn;
}

export interface CallOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not redirect to the login page on 401 (the login call itself). */
  allow401?: boolean;
}

export async function api<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-svc-request': '1' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path + queryString(opts.query ?? {}), {
    method,
    headers,
    credentials: 'same-origin',
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    const err = (data as { error?: { code?: string; message?: string } & Record<string, unknown> })?.error;
    const e = new ApiError(
      res.status,
      err?.code ?? 'http_error',
      err?.message ?? `${res.status} ${res.statusText}`,
      err ?? {},
    );
    if (res.status === 401 && !opts.allow401) onUnauthenticated();
    throw e;
  }
  return data as T;
}

export const get = <T>(path: string, query?: Query, signal?: AbortSignal) => api<T>('GET', path, { query, signal });
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, { body: body ?? {} });
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, { body });
export const del = (path: string) => api<void>('DELETE', path);

export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}
