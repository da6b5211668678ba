/**
 * No personal data in the gateway's logs: the access-log line of a login-code request holds no email, no line
 * holds the client's address (only its /24 or /64); the rate limiter counts an IPv6 client by its /64.
 */
import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { clientNetwork, rateLimitClient } from '@meridian/platform/clientNetwork';
import { listenOn } from '@meridian/platform/util/freePort';
import type { GatewayLogger } from '../logger.js';
import { HttpError } from './errors.js';
import { correlationAndAccessLog, rateLimit, redactUrl } from './middleware.js';

const lines: object[] = [];
const capture = (obj: object) => void lines.push(obj);
const logger: GatewayLogger = {
  info: capture,
  warn: capture,
  error: capture,
  debug: capture,
  child: () => logger,
};

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.set('trust proxy', true);
  app.use(correlationAndAccessLog(logger));
  app.post(
    '/api/users/:action/:email',
    rateLimit(createMemoryKeyValueStore(), 'sendLoginCode', { max: 2, windowMs: 60_000 }),
    (_req, res) => void res.json({ message: 'ok' }),
  );
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err instanceof HttpError ? err.status : 500).json({ message: (err as Error).message });
  });
  server = createServer(app);
  const port = await listenOn(server, 0, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function send(path: string, client: string) {
  const before = lines.length;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'x-forwarded-for': client } });
  await expect.poll(() => lines.length).toBeGreaterThan(before);
  return { status: res.status, line: JSON.stringify(lines.slice(before)) };
}

describe('access log', () => {
  it('a login-code request logs neither the email nor the client address', async () => {
    for (const action of ['sendLoginCode', 'loginWithCode']) {
      const { line } = await send(
        `/api/users/${action}/Jane.Doe%2Bx%40example.com?next=a@b.example`,
        '203.0.113.77',
      );
      expect(line).toContain(`/api/users/${action}/[email]`);
      expect(line.toLowerCase()).not.toMatch(/jane|example\.com|%40|@|b\.example/);
      expect(line).not.toContain('203.0.113.77');
      expect(line).toContain('203.0.113.0/24');
    }
  });

  it('an IPv6 client is logged as its /64', async () => {
    const { line } = await send('/api/users/sendLoginCode/x', '2001:db8:abcd:12:3456:789a:bcde:f012');
    expect(line).not.toMatch(/3456|789a|bcde|f012/);
    expect(line).toContain('2001:db8:abcd:12::/64');
  });

  it('redactUrl leaves a URL without secrets or emails as it is', () => {
    expect(redactUrl('/api/invest/history?page=2')).toBe('/api/invest/history?page=2');
    expect(redactUrl('/api/users/getUser')).toBe('/api/users/getUser');
  });
});

describe('rate limit by IPv6 /64', () => {
  it('two addresses of one /64 share a bucket; an address of another /64 has its own', async () => {
    const path = '/api/users/other/x';
    expect((await send(path, '2001:db8:0:1::1')).status).toBe(200);
    expect((await send(path, '2001:db8:0:1:ffff:ffff:ffff:fffe')).status).toBe(200);
    expect((await send(path, '2001:db8:0:1::42')).status).toBe(429);
    expect((await send(path, '2001:db8:0:2::1')).status).toBe(200);
    // IPv4 stays per address
    expect((await send(path, '198.51.100.1')).status).toBe(200);
    expect((await send(path, '198.51.100.2')).status).toBe(200);
  });
});

describe('clientNetwork / rateLimitClient', () => {
  it('truncates IPv4 to /24 and IPv6 to /64, reads IPv4-mapped IPv6 as IPv4', () => {
    expect(clientNetwork('10.1.2.3')).toBe('10.1.2.0/24');
    expect(clientNetwork('::ffff:10.1.2.3')).toBe('10.1.2.0/24');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientNetwork('2001:DB8::5:6:7:8')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('not an ip')).toBe('unknown');
    expect(clientNetwork(undefined)).toBe('unknown');
    expect(rateLimitClient('10.1.2.3')).toBe('10.1.2.3');
    expect(rateLimitClient('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(rateLimitClient('2001:db8:1:2:3:4:5:6')).toBe(rateLimitClient('2001:db8:1:2::9'));
    expect(rateLimitClient('2001:db8:1:2::9')).not.toBe(rateLimitClient('2001:db8:1:3::9'));
  });
});
