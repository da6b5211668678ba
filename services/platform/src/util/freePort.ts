/**
 * Listening on a TCP port: `listenOn` starts a server on a port (0: one the OS picks) and answers the port
 * it got; `freePort` answers a port for a server about to be started (a test's, a benchmark's, a tool's):
 * one the OS picked on 127.0.0.1 and released again, so it is free unless another process takes it before
 * the caller binds it.
 */
import { createServer, type Server } from 'node:net';

/** Starts `server` listening on `port` at `host`; answers the port it listens on, or the listen error (EADDRINUSE, EACCES). */
export function listenOn(server: Server, port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listenOn(server, 0, '127.0.0.1');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
