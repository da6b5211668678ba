import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, listenOn } from './freePort.js';

const servers: ReturnType<typeof createServer>[] = [];
const server = () => {
  const s = createServer();
  servers.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('listenOn', () => {
  it('answers the port the OS picked for port 0, and the server listens there', async () => {
    const s = server();
    const port = await listenOn(s, 0, '127.0.0.1');
    expect(port).toBeGreaterThan(0);
    expect(s.listening).toBe(true);
    expect(s.address()).toMatchObject({ port, address: '127.0.0.1' });
  });

  it('answers the listen error of a port already taken, and leaves no error listener behind', async () => {
    const port = await listenOn(server(), 0, '127.0.0.1');
    const second = server();
    await expect(listenOn(second, port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(second.listening).toBe(false);
    expect(second.listenerCount('error')).toBe(0);
  });
});

describe('freePort', () => {
  it('answers a port nobody listens on any more, which a server can then take', async () => {
    const port = await freePort();
    expect(await listenOn(server(), port, '127.0.0.1')).toBe(port);
  });
});
