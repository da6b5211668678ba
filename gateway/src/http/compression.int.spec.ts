import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOn } from '@meridian/platform/util/freePort';
import { routeTableApp } from '../testing/routeTable.js';
import { COMPRESSION_THRESHOLD, jsonCompression } from './compression.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is read as sent (fetch would decode Content-Encoding itself). */
function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

async function listen(app: express.Express): Promise<{ base: string; server: Server }> {
  const server = createServer(app);
  const port = await listenOn(server, 0, '127.0.0.1');
  return { base: `http://127.0.0.1:${port}`, server };
}

const vary = (a: Answer) =>
  String(a.headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase());

describe('the gateway: precompressed SPA files and compressed JSON', () => {
  let dist: string;
  let base: string;
  let server: Server;
  // a chunk as vite writes it: assets/<name>-<hash>.js with .br and .gz next to it (web/vite.config.ts)
  const js = Buffer.from(
    `export const rows = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ i })))};\n`,
  );
  const html = Buffer.from(
    `<!doctype html><html><head><script type="module" src="/assets/index-AbC123xy.js"></script></head><body>${'<div id="root"></div>'.repeat(80)}</body></html>`,
  );

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'meridian-spa-compression-'));
    mkdirSync(join(dist, 'assets'));
    for (const [name, body] of [
      ['assets/index-AbC123xy.js', js],
      ['index.html', html],
    ] as const) {
      writeFileSync(join(dist, name), body);
      writeFileSync(join(dist, `${name}.br`), brotliCompressSync(body));
      writeFileSync(join(dist, `${name}.gz`), gzipSync(body));
    }
    // a file the build did not compress (too small to gain): always sent as it is
    writeFileSync(join(dist, 'assets/tiny-Zz9.js'), 'export{};\n');
    ({ base, server } = await listen(routeTableApp('test', false, dist)));
  });
  afterAll(() => {
    server?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const asset = '/assets/index-AbC123xy.js';

  it('a hashed asset asked with Accept-Encoding: br answers the brotli file, immutable, Vary: Accept-Encoding', async () => {
    const a = await get(`${base}${asset}`, { 'accept-encoding': 'br' });
    expect(a.status).toBe(200);
    expect(a.headers['content-encoding']).toBe('br');
    expect(a.headers['content-type']).toMatch(/^text\/javascript/);
    expect(Number(a.headers['content-length'])).toBe(a.body.length);
    expect(a.body.length).toBeLessThan(js.length);
    expect(brotliDecompressSync(a.body).equals(js)).toBe(true);
    expect(vary(a)).toContain('accept-encoding');
    expect(a.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it("prefers brotli to gzip whatever the header's order; gzip when brotli is not accepted", async () => {
    const both = await get(`${base}${asset}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(both.headers['content-encoding']).toBe('br');
    for (const accept of ['gzip, deflate', 'gzip, br;q=0']) {
      const a = await get(`${base}${asset}`, { 'accept-encoding': accept });
      expect(a.headers['content-encoding'], accept).toBe('gzip');
      expect(a.headers['content-type']).toMatch(/^text\/javascript/);
      expect(gunzipSync(a.body).equals(js)).toBe(true);
      expect(vary(a)).toContain('accept-encoding');
      expect(a.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it('answers the file as it is when no encoding is accepted (identity, or no header)', async () => {
    for (const headers of [
      { 'accept-encoding': 'identity' },
      {},
      { 'accept-encoding': 'br;q=0, gzip;q=0' },
    ] as Array<Record<string, string>>) {
      const a = await get(`${base}${asset}`, headers);
      expect(a.status).toBe(200);
      expect(a.headers['content-encoding']).toBeUndefined();
      expect(a.body.equals(js)).toBe(true);
      expect(a.headers['content-type']).toMatch(/^text\/javascript/);
      expect(vary(a)).toContain('accept-encoding');
      expect(a.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const tiny = await get(`${base}/assets/tiny-Zz9.js`, { 'accept-encoding': 'br, gzip' });
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.body.toString()).toBe('export{};\n');
  });

  it('index.html and the client routes: no-cache, precompressed too', async () => {
    for (const path of ['/', '/login', '/dashboard', '/index.html']) {
      const br = await get(`${base}${path}`, { 'accept-encoding': 'gzip, br' });
      expect(br.status, path).toBe(200);
      expect(br.headers['cache-control'], path).toBe('no-cache');
      expect(br.headers['content-type'], path).toMatch(/^text\/html/);
      expect(br.headers['content-encoding'], path).toBe('br');
      expect(brotliDecompressSync(br.body).equals(html), path).toBe(true);
      expect(vary(br), path).toContain('accept-encoding');
      const plain = await get(`${base}${path}`);
      expect(plain.headers['cache-control'], path).toBe('no-cache');
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.body.equals(html), path).toBe(true);
    }
  });

  it('a missing asset is still 404 (no index.html for /assets/)', async () => {
    const a = await get(`${base}/assets/gone-123.js`, { 'accept-encoding': 'br' });
    expect(a.status).toBe(404);
  });

  it('a JSON answer over 1 KB is compressed (brotli, or gzip); one under 1 KB is not', async () => {
    const br = await get(`${base}/api/openapi.json`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    const doc = brotliDecompressSync(br.body);
    expect(doc.length).toBeGreaterThan(COMPRESSION_THRESHOLD);
    expect(br.body.length).toBeLessThan(doc.length);
    expect(JSON.parse(doc.toString())).toHaveProperty('openapi');
    expect(vary(br)).toContain('accept-encoding');

    const gz = await get(`${base}/api/openapi.json`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(doc)).toBe(true);

    const identity = await get(`${base}/api/openapi.json`, { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(doc)).toBe(true);

    const small = await get(`${base}/api/no-such-route`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(small.status).toBe(404);
    expect(small.headers['content-type']).toMatch(/^application\/json/);
    expect(small.body.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toHaveProperty('message');
  });
});

describe('jsonCompression: what it leaves alone', () => {
  let base: string;
  let server: Server;
  const big = { rows: Array.from({ length: 200 }, (_, i) => ({ i, name: `row ${i}` })) };
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(4096, 7)]);
  let releaseStream: () => void = () => {};

  beforeAll(async () => {
    const app = express();
    app.use(jsonCompression());
    app.get('/json', (_req, res) => res.json(big));
    app.get('/download.json', (_req, res) => res.attachment('statement.json').json(big));
    app.get('/image', (_req, res) => res.type('image/png').send(png));
    app.get('/pdf', (_req, res) => res.type('application/pdf').send(Buffer.alloc(4096, 1)));
    app.get('/events', (_req, res) => {
      res.set('Content-Type', 'text/event-stream');
      res.write(`data: ${'x'.repeat(2000)}\n\n`);
      // the stream stays open until the client has read the first event
      releaseStream = () => res.end('data: end\n\n');
    });
    ({ base, server } = await listen(app));
  });
  afterAll(() => server?.close());

  it('compresses JSON (control)', async () => {
    const a = await get(`${base}/json`, { 'accept-encoding': 'br' });
    expect(a.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(a.body).toString())).toEqual(big);
  });

  it('downloads (Content-Disposition: attachment), images and PDFs are sent byte for byte', async () => {
    const dl = await get(`${base}/download.json`, { 'accept-encoding': 'gzip, br' });
    expect(dl.headers['content-disposition']).toMatch(/^attachment/);
    expect(dl.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(dl.body.toString())).toEqual(big);
    const img = await get(`${base}/image`, { 'accept-encoding': 'gzip, br' });
    expect(img.headers['content-encoding']).toBeUndefined();
    expect(img.body.equals(png)).toBe(true);
    const pdf = await get(`${base}/pdf`, { 'accept-encoding': 'gzip, br' });
    expect(pdf.headers['content-encoding']).toBeUndefined();
    expect(pdf.body.length).toBe(4096);
  });

  it('a server-sent event stream is not compressed and its first event arrives before the end', async () => {
    const first = await new Promise<{ encoding: string | undefined; chunk: string }>((resolve, reject) => {
      request(`${base}/events`, { headers: { 'accept-encoding': 'gzip, br' } }, (res) => {
        res.once('data', (c: Buffer) => {
          resolve({ encoding: res.headers['content-encoding'], chunk: c.toString() });
          releaseStream();
          res.resume();
        });
        res.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    expect(first.encoding).toBeUndefined();
    expect(first.chunk.startsWith('data: xxx')).toBe(true);
  });
});
