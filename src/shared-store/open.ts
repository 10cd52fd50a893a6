import type { Config } from '../config/load.js';
import { DirStore } from './dir-store.js';
import type { ObjectStore } from './object-store.js';

/** The store SVC_STORE names, or undefined when svc runs alone on its data dir. */
export async function openObjectStore(config: Readonly<Config>): Promise<ObjectStore | undefined> {
  const s = config.store;
  if (!s) return undefined;
  if (s.kind === 'dir') return new DirStore(s.path);
  const { S3Store } = await import('./s3-store.js');
  return S3Store.open({
    bucket: s.bucket,
    prefix: s.prefix,
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    pathStyle: config.s3PathStyle,
  });
}
