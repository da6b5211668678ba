/** Whether a TCP port answers: the cluster's start waits for its processes' ports and picks free ones. */
import { connect } from 'node:net';

export function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

export async function portFree(port: number): Promise<boolean> {
  return !(await portOpen('127.0.0.1', port));
}
