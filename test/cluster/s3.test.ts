import { setTimeout as sleep } from 'node:timers/promises';
import { emptyStore, gatewaySkipReason, openTestStore, s3Server, startGateway, uniquePrefix } from '../helpers/s3.js';
import { describeCluster } from './cases.js';

/** How long the S3 server stays away in the outage case (the "stopped for 30 s"). */
const OUTAGE_MS = 30_000;

/**
 * The cluster cases on a real S3 server: the nodes talk to a RADOS Gateway of their own on the
 * run's Ceph cluster, which the outage case stops for 30 s; the test reads the bucket through
 * the run's main gateway, which stays up.
 */
const skip = gatewaySkipReason();
if (skip) console.log(`# cluster on S3 ${skip}`);
else
  describeCluster('an S3 bucket (Ceph RADOS Gateway)', async () => {
    const s = s3Server();
    const prefix = uniquePrefix('cluster');
    const gateway = await startGateway();
    const store = await openTestStore({ prefix });
    return {
      env: {
        SVC_STORE: `s3://${s.bucket}/${prefix}`,
        SVC_S3_ENDPOINT: gateway.endpoint,
        SVC_S3_REGION: s.region,
        SVC_S3_PATH_STYLE: 'true',
      },
      store,
      outageSecs: OUTAGE_MS / 1000,
      async outage() {
        await gateway.stop();
        const stoppedAt = Date.now();
        return async () => {
          await sleep(Math.max(0, stoppedAt + OUTAGE_MS - Date.now()));
          await gateway.start();
        };
      },
      async close() {
        await gateway.stop();
        await emptyStore(store);
        store.close();
      },
    };
  });
