import { s3Backend, s3SkipReason } from '../helpers/s3.js';
import { lookupClusterCases } from './cluster-cases.js';

// The same cases as cluster-dir.test.ts, with SVC_STORE in a real S3 bucket (the run's Ceph gateway).
const skip = s3SkipReason();
if (skip) console.log(`# lookup tables on S3 ${skip}`);
else lookupClusterCases(s3Backend);
