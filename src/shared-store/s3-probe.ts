import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { classify, withRetries, type RetryPolicy } from './s3-retry.js';

/** How the server wants the ETag in If-Match: as S3 returns it, quoted (AWS documents that), or bare (Ceph 16). */
export type EtagForm = 'bare' | 'quoted';

export function inForm(form: EtagForm, bareEtag: string): string {
  return form === 'quoted' ? `"${bareEtag}"` : bareEtag;
}

export function bare(etag: string | undefined): string {
  if (!etag) throw new Error('BUG: an S3 answer without an ETag');
  return etag.replace(/^W\//, '').replaceAll('"', '');
}

/** The server cannot keep several writers apart: svc refuses to use it as a shared store. */
export class StoreUnsupported extends Error {
  constructor(location: string, detail: string) {
    super(
      `the store at ${location} does not honour conditional writes (If-None-Match/If-Match): several svc nodes need them; AWS S3, MinIO and Ceph 16+ do (${detail})`,
    );
    this.name = 'StoreUnsupported';
  }
}

/** Where the probe writes: its own folder under the store's prefix, which `list` leaves out. */
export const PROBE_FOLDER = '.svc-probe/';

interface ProbeTarget {
  client: S3Client;
  bucket: string;
  /** The full object key (prefix included) of a fresh probe object. */
  key: string;
  location: string;
  policy: RetryPolicy;
}

/**
 * Checks with one fresh object that the server enforces `If-None-Match: *` and `If-Match` on
 * PutObject, and finds the ETag form its If-Match compares: create (must succeed), create again
 * (must be refused), then for each form a wrong ETag (must be refused) and the right one (must
 * succeed). Five requests on Ceph and AWS, seven at most; the object is deleted after.
 * Throws StoreUnsupported, or the client's failure when the server could not be asked.
 */
export async function probeConditionalWrites(t: ProbeTarget): Promise<EtagForm> {
  const put = (cond: { IfNoneMatch?: string; IfMatch?: string }) => tryPut(t, cond);
  try {
    let etag = await put({ IfNoneMatch: '*' });
    if (etag === 'refused')
      throw new StoreUnsupported(t.location, 'it refused to create a new object with If-None-Match: *');
    if ((await put({ IfNoneMatch: '*' })) !== 'refused')
      throw new StoreUnsupported(t.location, 'PutObject with If-None-Match: * replaced an existing object');
    const wrong = randomBytes(16).toString('hex');
    for (const form of ['bare', 'quoted'] as const) {
      const stale = await put({ IfMatch: inForm(form, wrong) });
      if (stale !== 'refused') {
        etag = stale; // this form is ignored: the write went through
        continue;
      }
      const matched = await put({ IfMatch: inForm(form, etag) });
      if (matched !== 'refused') return form;
    }
    throw new StoreUnsupported(t.location, 'PutObject with If-Match did not keep to the ETag, quoted or bare');
  } finally {
    await t.client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: t.key })).catch(() => {});
  }
}

/** One probe write: the new ETag (bare), or 'refused' when the server answered 412. */
async function tryPut(t: ProbeTarget, cond: { IfNoneMatch?: string; IfMatch?: string }): Promise<string> {
  try {
    const body = Buffer.from(`svc probe ${randomBytes(8).toString('hex')}`);
    const res = await withRetries(t.policy, () =>
      t.client.send(
        new PutObjectCommand({ Bucket: t.bucket, Key: t.key, Body: body, ContentLength: body.length, ...cond }),
      ),
    );
    return bare(res.ETag);
  } catch (e) {
    if (classify(e) === 'precondition') return 'refused';
    throw e;
  }
}
