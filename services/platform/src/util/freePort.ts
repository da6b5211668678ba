/**
 * A TCP port for a server about to be started (a test's, a benchmark's, a tool's): one the OS picked on 127.0.0.1
 * and released again, so it is free unless another process takes it before the caller binds it.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
