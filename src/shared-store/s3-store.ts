import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import {
  checkKey,
  StoreConflict,
  StoreUnavailable,
  type ObjectStore,
  type PutCondition,
  type StoreObject,
} from './object-store.js';
import { bare, inForm, probeConditionalWrites, PROBE_FOLDER, StoreUnsupported, type EtagForm } from './s3-probe.js';
import {
  backoffMs,
  classify,
  DEFAULT_RETRY,
  describeFailure,
  sleep,
  withRetries,
  type RetryPolicy,
} from './s3-retry.js';

export interface S3StoreOptions {
  bucket: string;
  /** Keys live under `prefix/` (no slash at either end; empty: the bucket's root). */
  prefix: string;
  /** A custom endpoint (Ceph, MinIO); undefined: AWS. */
  endpoint?: string;
  region: string;
  /** Path-style addressing (`endpoint/bucket/key`), which custom endpoints want. */
  pathStyle: boolean;
  /** Explicit credentials; undefined: the SDK's default chain (AWS_ACCESS_KEY_ID…, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  retry?: Partial<RetryPolicy>;
}

/** User metadata a conditional put carries, so that a retry can tell whether its first try landed. */
const WRITE_ID = 'svc-write-id';

/**
 * The shared store in an S3 bucket (AWS S3, MinIO, Ceph's RADOS Gateway). Objects are written
 * whole by PutObject (atomic on S3); versions are the ETags without their quotes (the MD5 of the
 * bytes for a PutObject). Conditional puts are PutObject with `If-None-Match: *` / `If-Match`,
 * enforced by the server, which `open` checks first. Every call retries transient failures
 * (throttling, 5xx, timeouts, network errors) with backoff; the SDK's own retries are off.
 * Safe to call concurrently; the client keeps a pool of connections.
 */
export class S3Store implements ObjectStore {
  readonly location: string;
  private readonly root: string;

  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    prefix: string,
    private readonly policy: RetryPolicy,
    /** How the server wants the ETag in If-Match, as the probe found. */
    readonly ifMatchForm: EtagForm,
  ) {
    this.root = prefix ? `${prefix}/` : '';
    this.location = locationOf(bucket, prefix);
  }

  /**
   * Opens the store after probing that the server enforces conditional writes (a few requests on a
   * probe object under the prefix). Throws StoreUnsupported when it does not, StoreUnavailable when
   * the server cannot be reached or refuses the credentials.
   */
  static async open(opts: S3StoreOptions): Promise<S3Store> {
    const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
    const client = new S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: opts.pathStyle,
      credentials: opts.credentials,
      // the SDK's default sends a stream body aws-chunked with a CRC trailer, which Ceph 16 refuses (411)
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 1,
      requestHandler: { connectionTimeout: policy.connectTimeoutMs, socketTimeout: policy.idleTimeoutMs },
    });
    const prefix = opts.prefix.replace(/^\/+|\/+$/g, '');
    const location = locationOf(opts.bucket, prefix);
    const probeKey = `${prefix ? `${prefix}/` : ''}${PROBE_FOLDER}${randomBytes(8).toString('hex')}`;
    try {
      const form = await probeConditionalWrites({ client, bucket: opts.bucket, key: probeKey, location, policy });
      return new S3Store(client, opts.bucket, prefix, policy, form);
    } catch (e) {
      client.destroy();
      if (e instanceof StoreUnsupported) throw e;
      throw new StoreUnavailable(location, `cannot open: ${describeFailure(e)}`, { cause: e });
    }
  }

  /** Closes the client's connections; the store is unusable after. */
  close(): void {
    this.client.destroy();
  }

  async get(key: string): Promise<{ data: Buffer; version: string } | undefined> {
    return this.call(key, async () => {
      const res = await this.absentAsUndefined(this.client.send(new GetObjectCommand(this.at(key))));
      if (!res) return undefined;
      return { data: Buffer.from(await res.Body!.transformToByteArray()), version: bare(res.ETag) };
    });
  }

  async head(key: string): Promise<StoreObject | undefined> {
    return this.call(key, async () => {
      const res = await this.absentAsUndefined(this.client.send(new HeadObjectCommand(this.at(key))));
      return res && { key, size: res.ContentLength ?? 0, version: bare(res.ETag) };
    });
  }

  async put(key: string, data: Buffer, cond?: PutCondition): Promise<string> {
    const input: PutObjectCommandInput = { ...this.at(key), Body: data, ContentLength: data.length };
    if (!cond) return this.call(key, async () => bare((await this.client.send(new PutObjectCommand(input))).ETag));
    return this.putConditional(key, input, cond);
  }

  async upload(key: string, path: string): Promise<StoreObject> {
    return this.call(key, async () => {
      // a fresh stream for each try: a failed try has consumed the last one (or never read it:
      // destroyed either way, so that no file stays open)
      const { size } = await stat(path);
      const body = createReadStream(path);
      try {
        const res = await this.client.send(new PutObjectCommand({ ...this.at(key), Body: body, ContentLength: size }));
        return { key, size, version: bare(res.ETag) };
      } finally {
        body.destroy();
      }
    });
  }

  async download(key: string, path: string): Promise<StoreObject> {
    await mkdir(dirname(path), { recursive: true }).catch((e: Error) => {
      throw new StoreUnavailable(this.location, `${key}: cannot write ${path}: ${e.message}`, { cause: e });
    });
    return this.call(key, async () => {
      const res = await this.client.send(new GetObjectCommand(this.at(key)));
      const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await pipeline(res.Body as Readable, createWriteStream(tmp, { mode: 0o600 }));
        await rename(tmp, path);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
      return { key, size: res.ContentLength ?? (await stat(path)).size, version: bare(res.ETag) };
    });
  }

  async delete(key: string): Promise<void> {
    // S3 answers an absent key's delete like any other
    await this.call(key, () => this.client.send(new DeleteObjectCommand(this.at(key))));
  }

  async list(prefix: string): Promise<StoreObject[]> {
    const out: StoreObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.call(prefix, () =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.root + prefix, ContinuationToken: token }),
        ),
      );
      for (const o of page.Contents ?? []) {
        const key = o.Key!.slice(this.root.length);
        if (!key.startsWith(PROBE_FOLDER)) out.push({ key, size: o.Size ?? 0, version: bare(o.ETag) });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    // S3 lists in UTF-8 byte order; the contract's order is the one every implementation sorts by
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /**
   * A conditional PutObject. A 412 is a conflict. Any other failure leaves the outcome open (Ceph
   * answers a lost race with 500, a timeout may hide a write that landed), so before another try
   * the object is read: carrying this write's id, it landed; no longer in the state the condition
   * wants, the write lost (StoreConflict); still in that state, nothing happened and it is retried.
   */
  private async putConditional(key: string, input: PutObjectCommandInput, cond: PutCondition): Promise<string> {
    const writeId = randomBytes(12).toString('hex');
    const guarded: PutObjectCommandInput = {
      ...input,
      Metadata: { [WRITE_ID]: writeId },
      ...('ifAbsent' in cond ? { IfNoneMatch: '*' } : { IfMatch: inForm(this.ifMatchForm, cond.ifVersion) }),
    };
    for (let n = 1; ; n++) {
      try {
        return bare((await this.client.send(new PutObjectCommand(guarded))).ETag);
      } catch (e) {
        const kind = classify(e);
        if (kind === 'precondition') throw new StoreConflict(key, 'ifAbsent' in cond ? 'it exists' : 'it changed');
        // AWS answers If-Match on an absent key with 404
        if (kind === 'absent') throw new StoreConflict(key, 'it is gone');
        if (kind !== 'transient' || n >= this.policy.attempts) throw this.unavailable(key, e);
        // look at once: a lost race (the usual 500) is a conflict without waiting for a backoff
        const now = await this.call(key, () =>
          this.absentAsUndefined(this.client.send(new HeadObjectCommand(this.at(key)))),
        );
        if (now?.Metadata?.[WRITE_ID] === writeId) return bare(now.ETag);
        if ('ifAbsent' in cond ? now !== undefined : now === undefined || bare(now.ETag) !== cond.ifVersion) {
          throw new StoreConflict(key, now ? 'another writer changed it' : 'it is gone');
        }
        this.policy.onRetry?.(n, e);
        await sleep(backoffMs(this.policy, n));
      }
    }
  }

  private at(key: string): { Bucket: string; Key: string } {
    return { Bucket: this.bucket, Key: this.root + checkKey(key) };
  }

  /** A 404 (NoSuchKey, NotFound) answers undefined; other failures pass through. */
  private async absentAsUndefined<T>(p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (e) {
      if (classify(e) === 'absent') return undefined;
      throw e;
    }
  }

  /** Runs one call with retries; what still fails becomes StoreUnavailable. */
  private async call<T>(key: string, attempt: () => Promise<T>): Promise<T> {
    try {
      return await withRetries(this.policy, attempt);
    } catch (e) {
      throw this.unavailable(key, e);
    }
  }

  private unavailable(key: string, e: unknown): StoreUnavailable {
    if (e instanceof StoreUnavailable) return e;
    return new StoreUnavailable(this.location, `${key}: ${describeFailure(e)}`, { cause: e });
  }
}

function locationOf(bucket: string, prefix: string): string {
  return `s3://${bucket}${prefix ? `/${prefix}` : ''}`;
}
