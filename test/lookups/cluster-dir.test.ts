import { dirBackend } from '../helpers/cluster.js';
import { lookupClusterCases } from './cluster-cases.js';

// Two svc processes sharing SVC_STORE as a directory.
lookupClusterCases(dirBackend);
