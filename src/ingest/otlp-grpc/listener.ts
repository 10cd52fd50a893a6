import { experimental, Server, ServerCredentials } from '@grpc/grpc-js';
import type { ListenAddress } from '../../config/load.js';
import { SvcError } from '../../errors/svc-error.js';
import type { IngestContext } from '../common/context.js';
import { LOGS_SERVICE, logsService } from './route.js';

/**
 * The OTLP/gRPC listener (SVC_OTLP_GRPC_LISTEN): its own HTTP/2 port beside the HTTP server, with
 * svc's certificate when svc serves HTTPS (SVC_TLS_CERT/SVC_TLS_KEY) and plaintext otherwise.
 * A message is bounded like an HTTP body (SVC_MAX_BODY_BYTES), compressed and decompressed:
 * grpc-js answers RESOURCE_EXHAUSTED past it before our handler runs.
 */

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

export interface OtlpGrpcOptions {
  listen: ListenAddress;
  /** svc's certificate and key (already checked by http/tls.ts readTlsFiles); undefined: plaintext. */
  tls?: TlsPair;
}

export interface OtlpGrpcListener {
  /** The bound port (0 resolved). */
  port: number;
  /** Export calls being handled now (arrived, not yet answered). */
  inFlight(): number;
  /** Serves `pair` to new connections (a renewed certificate); open ones keep theirs. TLS only. */
  setSecureContext(pair: TlsPair): void;
  /**
   * Stops accepting calls and lets those in flight finish (each answers once its batch is durable
   * or refused); after `graceMs` what is left is cut (their exporters retry: nothing was acked).
   */
  close(graceMs: number): Promise<void>;
}

type IdentityListener = (update: { certificate: Buffer; privateKey: Buffer } | null) => void;

/**
 * The certificate as grpc-js's certificate provider interface wants it, so a renewal reaches new
 * connections without a restart (the HTTP server's reload, http/tls.ts, calls setSecureContext).
 */
class ReloadableIdentity implements experimental.CertificateProvider {
  private readonly listeners = new Set<IdentityListener>();

  constructor(private pair: TlsPair) {}

  set(pair: TlsPair): void {
    this.pair = pair;
    for (const l of this.listeners) l(this.update());
  }

  private update() {
    return { certificate: this.pair.cert, privateKey: this.pair.key };
  }

  addIdentityCertificateListener(l: IdentityListener): void {
    this.listeners.add(l);
    // later, as grpc-js's own providers do: it registers its watcher only after adding this listener
    process.nextTick(() => l(this.update()));
  }

  removeIdentityCertificateListener(l: IdentityListener): void {
    this.listeners.delete(l);
  }

  addCaCertificateListener(): void {}
  removeCaCertificateListener(): void {}
}

function bindAddress(a: ListenAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

function bind(server: Server, address: string, creds: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, creds, (err, port) =>
      err
        ? reject(new SvcError('invalid_input', `SVC_OTLP_GRPC_LISTEN: cannot listen on ${address}: ${err.message}`))
        : resolve(port),
    ),
  );
}

/** Starts the listener. Rejects when the address cannot be bound (svc refuses to start). */
export async function startOtlpGrpc(ctx: IngestContext, opts: OtlpGrpcOptions): Promise<OtlpGrpcListener> {
  const server = new Server({
    'grpc.max_receive_message_length': ctx.maxBodyBytes,
  });
  const calls = { inFlight: 0 };
  server.addService(LOGS_SERVICE, logsService(ctx, calls));
  const identity = opts.tls ? new ReloadableIdentity(opts.tls) : undefined;
  // the first argument is the identity provider, whatever grpc-js's parameter name says
  const creds = identity
    ? experimental.createCertificateProviderServerCredentials(identity, null, false)
    : ServerCredentials.createInsecure();
  const port = await bind(server, bindAddress(opts.listen), creds);
  return {
    port,
    inFlight: () => calls.inFlight,
    setSecureContext: (pair) => identity?.set(pair),
    close: (graceMs) => shutdown(server, graceMs),
  };
}

function shutdown(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const cut = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(cut);
      resolve();
    });
  });
}
