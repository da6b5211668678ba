/**
 * `make bench`: throughput and latency of the gateway, as ratios against baselines measured in the
 * same run on the same machine (a bare Node HTTP server and an Express hello route), so the figures
 * mean something whatever the machine. Not a test: it prints and writes bench/results/latest.json,
 * and compares with the previous run's file when there is one.
 *
 * Every target is on 127.0.0.1; every run is bounded by BENCH_SECONDS (default 5).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const root = new URL('..', import.meta.url).pathname;

interface Figure {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function measure(name: string, url: string, headers: Record<string, string> = {}): Promise<Figure> {
  const r = await autocannon({ url, connections, duration: seconds, headers });
  const fig = {
    name,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
  };
  console.log(`${name.padEnd(34)} ${String(fig.rps).padStart(7)} req/s   p50 ${fig.p50} ms   p99 ${fig.p99} ms   non-2xx ${fig.non2xx}`);
  return fig;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

async function startStandalone(): Promise<{ url: string; stop(): void }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meridian-bench-'));
  const port = 18000 + Math.floor(Math.random() * 1000);
  const child = spawn(join(root, 'node_modules/.bin/tsx'), ['services/standalone/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('standalone target exited');
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('standalone target not ready in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Registers a fresh user and returns the cookie header of its session. */
async function sessionCookie(url: string): Promise<string> {
  const first = await fetch(`${url}/api/users/loginStatus`);
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
  };
  keep(first);
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${url}/api/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: cookie(), 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' },
    body: JSON.stringify({
      name: 'Bench User',
      email: `bench-${Date.now()}@example.com`,
      password: 'Bench!Pass1',
      phone: '+15555550100',
      country: 'US',
    }),
  });
  if (!res.ok) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  keep(res);
  return cookie();
}

const bare = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
});
const app = express();
app.get('/hello', (_req, res) => {
  res.json({ ok: true });
});
const hello = createServer(app);
const barePort = await listen(bare);
const helloPort = await listen(hello);
const standalone = await startStandalone();

try {
  console.log(`\nMeridian bench: ${connections} connections, ${seconds} s per run, all on 127.0.0.1\n`);
  const cookie = await sessionCookie(standalone.url);
  const figures = [
    await measure('baseline: bare node http', `http://127.0.0.1:${barePort}/`),
    await measure('baseline: express hello', `http://127.0.0.1:${helloPort}/hello`),
    await measure('gateway: GET /healthz', `${standalone.url}/healthz`),
    await measure('gateway: GET getUser (session)', `${standalone.url}/api/users/getUser`, { cookie }),
  ];
  const [b, e] = figures;
  const ratios = Object.fromEntries(
    figures.slice(2).map((f) => [f.name, { vsBare: +(f.rps / b.rps).toFixed(3), vsExpress: +(f.rps / e.rps).toFixed(3) }]),
  );
  console.log('\nratios (throughput / baseline throughput):');
  for (const [name, r] of Object.entries(ratios)) console.log(`  ${name.padEnd(34)} ${r.vsBare} of bare node, ${r.vsExpress} of express`);

  const dir = join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const latest = join(dir, 'latest.json');
  if (existsSync(latest)) {
    const prev = JSON.parse(readFileSync(latest, 'utf8')) as { ratios: typeof ratios };
    console.log('\nagainst the previous run (ratio now / ratio then):');
    for (const [name, r] of Object.entries(ratios)) {
      const p = prev.ratios?.[name];
      if (p) console.log(`  ${name.padEnd(34)} ${(r.vsBare / p.vsBare).toFixed(2)}x`);
    }
    renameSync(latest, join(dir, 'previous.json'));
  }
  writeFileSync(latest, JSON.stringify({ at: new Date().toISOString(), seconds, connections, figures, ratios }, null, 2));
  console.log(`\nwritten to bench/results/latest.json`);
} finally {
  standalone.stop();
  bare.close();
  hello.close();
}
process.exit(0);
