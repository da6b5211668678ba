import { connect, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, listenOn } from '@meridian/platform/util/freePort';
import { startFront, type Front } from '../scripts/cluster/front.js';

/** A replica: answers `<name>:<what it was sent>` and closes. */
async function replica(name: string): Promise<{ server: Server; address: string }> {
  const server = createServer((s) => {
    s.once('data', (d) => s.end(`${name}:${d.toString()}`));
  });
  const port = await listenOn(server, 0, '127.0.0.1');
  return { server, address: `127.0.0.1:${port}` };
}

/** One connection through the front: sends `what`, answers all it got back before the close. */
function ask(front: Front, what: string): Promise<string> {
  const at = front.address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const s = connect({ host: front.address.slice(0, at), port: Number(front.address.slice(at + 1)) });
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('error', reject);
    s.on('close', () => resolve(got));
    s.write(what);
  });
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('the cluster front of a service’s replicas (scripts/cluster/front.ts)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('sends each connection to the next replica in turn, both ways', async () => {
    const a = await replica('a');
    const b = await replica('b');
    cleanup.push(
      () => closeServer(a.server),
      () => closeServer(b.server),
    );
    const front = await startFront(`127.0.0.1:${await freePort()}`, [a.address, b.address]);
    cleanup.push(() => front.close());

    const answers = [];
    for (const n of [1, 2, 3, 4]) answers.push(await ask(front, `call ${n}`));
    expect(answers).toEqual(['a:call 1', 'b:call 2', 'a:call 3', 'b:call 4']);
  });

  it('passes over a replica that refuses (killed, restarting): every connection reaches the other', async () => {
    const a = await replica('a');
    const b = await replica('b');
    cleanup.push(() => closeServer(b.server));
    await closeServer(a.server);
    const front = await startFront(`127.0.0.1:${await freePort()}`, [a.address, b.address]);
    cleanup.push(() => front.close());

    const answers = [];
    for (const n of [1, 2, 3]) answers.push(await ask(front, `call ${n}`));
    expect(answers).toEqual(['b:call 1', 'b:call 2', 'b:call 3']);
  });

  it('closes the connection, with nothing sent, when every replica refuses', async () => {
    const a = await replica('a');
    await closeServer(a.server);
    const front = await startFront(`127.0.0.1:${await freePort()}`, [a.address]);
    cleanup.push(() => front.close());

    expect(await ask(front, 'anyone?')).toBe('');
  });
});
