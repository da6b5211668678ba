/**
 * A TCP front for a service's replicas, as a Kubernetes Service is for its pods: the cluster gives a client the
 * front's one address, each connection goes to the next replica in turn, and to the replica after it when that
 * one refuses (killed, or restarting under the supervisor). The kyc replicas' document endpoint sits behind one
 * (the gateway's KYC_HTTP_URL names a single URL); gRPC clients spread over the replicas themselves.
 */
import { connect, createServer, type Socket } from 'node:net';
import { listenOn } from '@meridian/platform/util/freePort';

export interface Front {
  /** host:port the front listens on. */
  address: string;
  close(): Promise<void>;
}

/** `listen` and each of `targets` as host:port. */
export async function startFront(listen: string, targets: readonly string[]): Promise<Front> {
  if (targets.length === 0) throw new Error('a front needs at least one target');
  const split = (address: string) => {
    const at = address.lastIndexOf(':');
    return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
  };
  const upstreams = targets.map(split);
  const open = new Set<Socket>();
  let next = 0;

  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    const first = next;
    next = (next + 1) % upstreams.length;
    const attempt = (tried: number) => {
      if (client.destroyed) return;
      if (tried === upstreams.length) {
        client.destroy();
        return;
      }
      const upstream = connect(upstreams[(first + tried) % upstreams.length]!);
      open.add(upstream);
      const refused = () => {
        open.delete(upstream);
        attempt(tried + 1);
      };
      upstream.once('error', refused);
      upstream.once('connect', () => {
        upstream.off('error', refused);
        if (client.destroyed) {
          upstream.destroy();
          return;
        }
        const end = () => {
          client.destroy();
          upstream.destroy();
        };
        upstream.on('error', end);
        upstream.on('close', () => {
          open.delete(upstream);
          end();
        });
        client.on('close', end);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });

  const { host, port } = split(listen);
  await listenOn(server, port, host);
  return {
    address: listen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
