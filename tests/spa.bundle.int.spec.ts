/**
 * The SPA's first route loads at most 120 KB of gzipped JS, and a production build
 * carries no source maps. A size budget read from vite's manifest after a real build (into a temporary
 * folder, so web/dist is left alone), not a timing. The figure against its baselines is `make bench`'s
 * module `spa` (bench/spa.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildSpa,
  FIRST_ROUTE_BUDGET,
  readManifest,
  routeLoad,
  ROUTES,
  sourceMapLeaks,
  type Manifest,
} from '../web/scripts/bundleSize.js';

describe('the SPA production build', () => {
  let dist: string;
  let manifest: Manifest;

  beforeAll(() => {
    dist = mkdtempSync(join(tmpdir(), 'meridian-spa-budget-'));
    buildSpa(dist);
    manifest = readManifest(dist);
  }, 120_000);
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it.each(['/', '/login'])('the first route %s loads at most 120 KB of gzipped JS', (route) => {
    const load = routeLoad(
      dist,
      manifest,
      ROUTES.find((r) => r.route === route)!,
    );
    expect(load.gzip, load.chunks.map((c) => `${c.file} ${c.gzip}`).join('\n')).toBeLessThanOrEqual(
      FIRST_ROUTE_BUDGET,
    );
  });

  it('the first route leaves socket.io-client, react-toastify and the money, KYC and admin screens to their own chunks', () => {
    const entry = Object.keys(manifest).find((k) => manifest[k].isEntry)!;
    const closure = new Set<string>();
    const visit = (key: string) => {
      if (closure.has(key)) return;
      closure.add(key);
      for (const dep of manifest[key].imports ?? []) visit(dep);
    };
    visit(entry);
    const onDemand = [
      'socket.io-client',
      'src/features/layout/AppToasts.tsx', // react-toastify's container (and react-toastify with it)
      'src/features/deposits/',
      'src/features/withdrawals/',
      'src/features/investments/',
      'src/features/kyc/',
      'src/features/history/',
      'src/features/profile/',
    ];
    for (const key of closure) for (const part of onDemand) expect(key).not.toContain(part);
    // nor their code bundled into a first-route chunk (react-toastify's class names, engine.io's transports)
    const first = routeLoad(dist, manifest, ROUTES[0]);
    for (const chunk of first.chunks) {
      const code = readFileSync(join(dist, chunk.file), 'utf8');
      expect(code, chunk.file).not.toContain('Toastify__');
      expect(code, chunk.file).not.toContain('websocket');
    }
    // and each of them is still in the build, reachable on demand
    for (const part of onDemand) expect(Object.keys(manifest).some((k) => k.includes(part))).toBe(true);
  });

  it('writes no source maps and no sourceMappingURL comment', () => {
    expect(sourceMapLeaks(dist)).toEqual([]);
  });
});
