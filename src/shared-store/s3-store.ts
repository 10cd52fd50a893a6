import type { ObjectStore } from './object-store.js';

export interface S3StoreOptions {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  pathStyle: boolean;
}

/** The shared store in an S3 bucket (being built: the directory store works today). */
export class S3Store {
  static async open(opts: S3StoreOptions): Promise<ObjectStore> {
    throw new Error(`SVC_STORE=s3://${opts.bucket}/${opts.prefix}: the S3 store is not built yet`);
  }
}
