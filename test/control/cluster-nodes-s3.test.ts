import { s3Backend, s3SkipReason } from '../helpers/s3.js';
import { clusterCases } from './cluster-cases.js';

// The same cases as cluster-nodes.test.ts, with SVC_STORE in a real S3 bucket (the run's Ceph gateway).
const skip = s3SkipReason();
if (skip) console.log(`# control plane on S3 ${skip}`);
else clusterCases(s3Backend);
