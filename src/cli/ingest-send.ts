import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CliContext } from './context.js';
import { CliError } from './errors.js';
import { ApiError, UnreachableError, type ApiClient, type Query } from './http-client.js';

/**
 * How `svc ingest` authenticates and sends a batch. POST /api/ingest takes ingest tokens only
 * (pinned to an environment), so the credential is, in order: SVC_INGEST_TOKEN; the stored token
 * or SVC_TOKEN when it is an ingest token (`svi_…`); else an administrator's session or admin API
 * key creates a temporary ingest token for the run's environment, deleted when the run ends.
 */

export interface IngestCredential {
  token: string;
  /** Set for a temporary token: deletes it (best effort). */
  release(): Promise<void>;
  /** Said on stderr: what the run uses. */
  description: string;
}

export interface IngestAnswer {
  ingested: number;
  errors: number;
  firstErrors: { line: number; message: string }[];
}

export async function ingestCredential(ctx: CliContext, env: string | undefined): Promise<IngestCredential> {
  const none = async () => undefined;
  if (ctx.env.ingestToken)
    return { token: ctx.env.ingestToken, release: none, description: 'the ingest token of SVC_INGEST_TOKEN' };
  const client = ctx.client();
  const token = client.target.token;
  if (token?.startsWith('svi_')) return { token, release: none, description: 'the stored ingest token' };
  if (!token)
    throw new CliError(
      `svc ingest needs a credential for ${client.url}: set SVC_INGEST_TOKEN to an ingest token, or log in as an administrator (svc login)`,
    );
  const name = `svc-ingest-${hostname()}-${new Date().toISOString().replace(/[:.]/g, '')}`.slice(0, 100);
  let created: { id: string; secret: string };
  try {
    created = await client.post<{ id: string; secret: string }>('/api/admin/ingest-tokens', {
      name,
      env: env ?? 'default',
    });
  } catch (e) {
    if (e instanceof ApiError && (e.code === 'insufficient_scope' || e.code === 'access_denied')) {
      throw new CliError(
        `svc ingest: ${e.message}; ingesting takes an ingest token: set SVC_INGEST_TOKEN, or log in as an administrator so that svc ingest can create a temporary one`,
      );
    }
    throw e;
  }
  return {
    token: created.secret,
    description: `a temporary ingest token "${name}" for environment "${env ?? 'default'}"`,
    release: async () => {
      await client.delete(`/api/admin/ingest-tokens/${encodeURIComponent(created.id)}`).catch((e: Error) => {
        process.stderr.write(
          `svc ingest: cannot delete the temporary ingest token "${name}": ${e.message} (delete it with svc tokens delete)\n`,
        );
      });
    },
  };
}

export interface RetryPolicy {
  retries: number;
  /** First wait; doubled after each try, at most maxMs. */
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 10, baseMs: 500, maxMs: 30_000 };

/** The wait before try `attempt + 1`: the server's Retry-After when it gave one, else exponential backoff with jitter. */
export function retryDelayMs(e: ApiError | UnreachableError, attempt: number, p: RetryPolicy): number {
  if (e instanceof ApiError && e.retryAfterSecs !== undefined) return Math.min(e.retryAfterSecs * 1000, 10 * p.maxMs);
  const exp = Math.min(p.maxMs, p.baseMs * 2 ** attempt);
  return Math.round(exp * (0.8 + Math.random() * 0.4));
}

/**
 * Only what cannot have been ingested is retried: 429 and 503 (svc refused the batch) and a
 * refused connection (nothing reached svc). A connection lost mid-request is not: the batch may
 * have been stored, and sending it again would store it twice; the run stops and says where to resume.
 */
function retriable(e: unknown): e is ApiError | UnreachableError {
  return (e instanceof ApiError && e.retriable) || (e instanceof UnreachableError && e.refused);
}

/** Sends one batch, retrying per the policy; `onWait` is told each wait (for the progress line). */
export async function sendBatch(
  client: ApiClient,
  req: {
    token: string;
    query: Query;
    body: Buffer;
    contentType: string;
    /** Aborts the request itself. */ signal: AbortSignal;
    /** Aborts a wait between tries. */ waitSignal: AbortSignal;
  },
  policy: RetryPolicy,
  onWait: (ms: number, why: string) => void,
): Promise<IngestAnswer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.json<IngestAnswer>('POST', '/api/ingest', {
        query: req.query,
        body: req.body,
        contentType: req.contentType,
        token: req.token,
        signal: req.signal,
      });
    } catch (e) {
      if (!retriable(e) || attempt >= policy.retries) throw e;
      const ms = retryDelayMs(e, attempt, policy);
      onWait(ms, e instanceof ApiError ? e.code : 'connection refused');
      await sleep(ms, undefined, { signal: req.waitSignal });
    }
  }
}
