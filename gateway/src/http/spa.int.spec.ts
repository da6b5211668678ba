import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOn } from '@meridian/platform/util/freePort';
import { spaRouter } from './spa.js';

/** The SPA as the gateway serves it: source maps and vite's build metadata are not public. */
describe('spaRouter', () => {
  let dist: string;
  let base: string;
  let close: () => void;

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'meridian-spa-'));
    mkdirSync(join(dist, 'assets'));
    mkdirSync(join(dist, '.vite'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(dist, 'assets/index-abc.js'), 'console.log(1);\n');
    // a map left behind (an older build, a hand copy): still not served
    writeFileSync(join(dist, 'assets/index-abc.js.map'), '{"version":3,"sources":["src/secret.ts"]}');
    writeFileSync(join(dist, 'favicon.svg.map'), '{}');
    writeFileSync(join(dist, '.vite/manifest.json'), '{"index.html":{"file":"assets/index-abc.js"}}');
    const app = express().use(spaRouter(dist));
    const server = createServer(app);
    const port = await listenOn(server, 0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    close = () => server.close();
  });
  afterAll(() => {
    close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('answers 404 to GET /assets/<chunk>.map, and serves the chunk itself', async () => {
    const map = await fetch(`${base}/assets/index-abc.js.map`);
    expect(map.status).toBe(404);
    expect(await map.text()).not.toContain('sources');
    const js = await fetch(`${base}/assets/index-abc.js`);
    expect(js.status).toBe(200);
    expect(await js.text()).toBe('console.log(1);\n');
  });

  it('answers 404 to any other *.map (no index.html fallback either)', async () => {
    for (const path of ['/favicon.svg.map', '/assets/missing.js.map', '/deep/route.map']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
    }
  });

  it("does not serve vite's manifest (client routes still answer index.html)", async () => {
    const manifest = await fetch(`${base}/.vite/manifest.json`);
    expect(await manifest.text()).not.toContain('assets/index-abc.js');
    const route = await fetch(`${base}/admin-pending-deposit`);
    expect(route.status).toBe(200);
    expect(await route.text()).toContain('<div id="root">');
  });
});
