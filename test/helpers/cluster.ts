import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startServerProcess, runServerProcessToExit, type ProcessResult, type ProcessServer } from './process.js';

/**
 * A kind of shared store the cluster tests run against. A directory today; an S3 bucket can plug
 * in with the same cases (test/control/cluster-cases.ts).
 */
export interface StoreBackend {
  /** For test names: "a shared directory". */
  name: string;
  /** A fresh, empty store. */
  create(): Promise<TestStore>;
}

export interface TestStore {
  /** SVC_STORE and whatever else a node needs to reach it (SVC_S3_ENDPOINT, credentials). */
  env: Record<string, string>;
  /** Every stored file or object with its bytes, keyed by its name, to compare before and after. */
  snapshot(): Promise<Map<string, Buffer>>;
  dispose(): Promise<void>;
}

/** SVC_STORE as a directory; the snapshot is every file under it, lock and temp files included. */
export const dirBackend: StoreBackend = {
  name: 'a shared directory',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    return {
      env: { SVC_STORE: dir },
      async snapshot() {
        const files = new Map<string, Buffer>();
        const walk = (d: string): void => {
          for (const e of readdirSync(d, { withFileTypes: true })) {
            const p = join(d, e.name);
            if (e.isDirectory()) walk(p);
            else files.set(relative(dir, p), readFileSync(p));
          }
        };
        walk(dir);
        return files;
      },
      async dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const CLUSTER_ADMIN_PASSWORD = 'cluster-admin-password';

/**
 * Nodes that share one store, each a real svc process with its own data dir, and the files every
 * node of a cluster must share: the control key and the JWT secret (created up front, as an
 * operator copies them to every node).
 */
export class TestCluster {
  readonly controlKeyPath: string;
  readonly jwtSecretPath: string;
  private readonly dir: string;
  private readonly running: ProcessServer[] = [];
  private seq = 0;

  private constructor(
    readonly store: TestStore,
    private readonly base: Record<string, string>,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
    this.controlKeyPath = this.newKeyFile('control.key');
    this.jwtSecretPath = this.newKeyFile('jwt.secret');
  }

  /** `env` applies to every node (e.g. SVC_CONTROL_ENCRYPTION). */
  static async create(backend: StoreBackend, env: Record<string, string> = {}): Promise<TestCluster> {
    return new TestCluster(await backend.create(), env);
  }

  /** A file of 32 random bytes as base64, like the ones svc generates. */
  newKeyFile(name: string): string {
    const path = join(this.dir, `${this.seq++}-${name}`);
    writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    return path;
  }

  /** A path in the cluster's scratch dir where no file is. */
  missingFile(name: string): string {
    return join(this.dir, `${this.seq++}-missing-${name}`);
  }

  /** The settings of a new node: its own data dir, the shared store and files; `env` overrides. */
  nodeEnv(env: Record<string, string> = {}): Record<string, string> {
    const n = this.seq++;
    return {
      SVC_DATA_DIR: join(this.dir, `node-${n}`),
      SVC_NODE_ID: `node-${n}`,
      SVC_CONTROL_KEY_PATH: this.controlKeyPath,
      SVC_JWT_SECRET_PATH: this.jwtSecretPath,
      SVC_ADMIN_PASSWORD: CLUSTER_ADMIN_PASSWORD,
      ...this.store.env,
      ...this.base,
      ...env,
    };
  }

  async start(env: Record<string, string> = {}): Promise<ProcessServer> {
    const node = await startServerProcess(this.nodeEnv(env));
    this.running.push(node);
    return node;
  }

  /** Starts a node expected to refuse to start. */
  runToExit(env: Record<string, string> = {}): Promise<ProcessResult> {
    return runServerProcessToExit(this.nodeEnv(env));
  }

  async stopAll(): Promise<void> {
    for (const n of this.running.splice(0)) await n.stop();
  }

  async dispose(): Promise<void> {
    await this.stopAll();
    await this.store.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
