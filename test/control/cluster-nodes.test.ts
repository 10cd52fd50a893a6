import { dirBackend } from '../helpers/cluster.js';
import { clusterCases } from './cluster-cases.js';

// Real svc processes sharing SVC_STORE as a directory. An S3 run passes its own StoreBackend.
clusterCases(dirBackend);
