/** The gateway's Prometheus metrics: route-pattern durations, sockets, logins; never on the public port. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { startMetricsServer, type MetricsServer } from '@meridian/platform/metrics';
import { waitFor } from '@meridian/platform/testing/waitFor';
import {
  adminBrowser,
  freshEmail,
  generousGatewayLimits,
  HttpSession,
  startTestComposition,
  type TestComposition,
} from './testing/composition.js';

let t: TestComposition;
let metricsServer: MetricsServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await startTestComposition({
    gateway: { rateLimits: { ...generousGatewayLimits, login: { max: 4, windowMs: 60_000 } } },
  });
  metricsServer = await startMetricsServer({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await metricsServer?.stop();
  await t?.stop();
});

const scrape = async () => (await fetch(metricsServer.url)).text();
/** Sum of the series of `name` whose labels include every `labels` pair. */
const sumOf = (text: string, name: string, labels: Record<string, string> = {}) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

describe('gateway metrics', () => {
  it('labels HTTP durations with the route pattern, never the raw path', async () => {
    const email = freshEmail('metrics');
    const routeCount = (text: string, status: number) =>
      sumOf(text, 'http_server_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/users/loginWithCode/:email',
        status_code: String(status),
      });
    const grpcCount = (text: string) =>
      sumOf(text, 'grpc_server_handling_seconds_count', {
        grpc_service: 'meridian.identity.v1.IdentityService',
        grpc_method: 'LoginWithCode',
      });
    // the registry is the process's: other specs' requests may be counted in it already
    const before = await scrape();
    const res = await new HttpSession(t.url).post(`/api/users/loginWithCode/${encodeURIComponent(email)}`, {
      loginCode: '000000',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    await fetch(`${t.url}/api/no-such-thing`).then((r) => r.text());

    const text = await scrape();
    const durations = text.split('\n').filter((l) => l.startsWith('http_server_request_duration_seconds'));
    expect(routeCount(text, res.status) - routeCount(before, res.status)).toBe(1);
    expect(
      sumOf(text, 'http_server_request_duration_seconds_count', { route: 'unmatched', status_code: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(durations.some((l) => l.includes(email.split('@')[0]) || l.includes('no-such-thing'))).toBe(false);
    // the services behind it: gRPC durations by method and code
    expect(grpcCount(text) - grpcCount(before)).toBe(1);
  });

  it('counts login answers by outcome: success, failure, rate-limit refusal', async () => {
    const before = await scrape();
    const admin = await adminBrowser(t.url);
    const afterAdmin = await scrape();
    expect(
      sumOf(afterAdmin, 'meridian_gateway_logins_total', { outcome: 'success' }) -
        sumOf(before, 'meridian_gateway_logins_total', { outcome: 'success' }),
    ).toBe(1);

    const stranger = new HttpSession(t.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6 && !statuses.includes(429); i++) {
      statuses.push(
        (
          await stranger.post('/api/users/login', {
            email: freshEmail('nobody'),
            password: 'Wrong-passw0rd!',
          })
        ).status,
      );
    }
    expect(statuses).toContain(429);
    const after = await scrape();
    const delta = (outcome: string) =>
      sumOf(after, 'meridian_gateway_logins_total', { method: 'password', outcome }) -
      sumOf(afterAdmin, 'meridian_gateway_logins_total', { method: 'password', outcome });
    expect(delta('rate_limited')).toBe(1);
    expect(delta('failure')).toBe(statuses.length - 1);
    expect(delta('success')).toBe(0);

    // sockets connected: a gauge that follows connections
    const socket = connect(t.url, {
      path: '/socket.io',
      transports: ['websocket'],
      extraHeaders: { cookie: admin.cookieHeader() },
      reconnection: false,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.on('ready', () => resolve());
      socket.on('connect_error', reject);
    });
    expect(sumOf(await scrape(), 'meridian_gateway_sockets_connected')).toBe(1);
    socket.disconnect();
    await waitFor(async () => sumOf(await scrape(), 'meridian_gateway_sockets_connected') === 0);
  });

  it('never answers the metrics on the public port: /metrics is the SPA there', async () => {
    const res = await fetch(`${t.url}/metrics`);
    const body = await res.text();
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(body).not.toContain('http_server_request_duration_seconds');
    expect(body).not.toContain('# TYPE');
    expect(
      sumOf(await scrape(), 'http_server_request_duration_seconds_count', {
        method: 'GET',
        route: '/{*splat}',
      }),
    ).toBeGreaterThanOrEqual(1);
  });
});
