import type { Server as TcpServer } from 'node:net';
import type { ListenAddress } from '../../config/load.js';

/** Binds a TCP listener (syslog, RELP); rejects when the address cannot be bound. Resolves with the bound port (0 resolved). */
export async function listenTcp(server: TcpServer, addr: ListenAddress): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address();
  return typeof a === 'object' && a ? a.port : addr.port;
}
