/**
 * The SPA's JavaScript by route, read from vite's manifest (web/dist/.vite/manifest.json): what a route
 * loads is the entry chunk and its static imports, plus the chunks the route brings on demand (its
 * screen, socket.io-client once logged in, react-toastify once something toasts) with their static
 * imports. Sizes are gzip at zlib's default level (what a compressing server sends).
 *
 * Used by bench/spa.ts (`make bench`, module `spa`) and the size-budget test (web/bundleBudget.int.spec.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const webRoot = join(repoRoot, 'web');
const viteBin = join(repoRoot, 'node_modules/.bin/vite');

/** The budget of the first route's gzipped JS (bytes; 1 KB = 1000 bytes, as vite prints). */
export const FIRST_ROUTE_BUDGET = 120_000;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface RouteLoad {
  /** e.g. "/" or "/admin-pending-deposit (admin, logged in)" */
  route: string;
  /** Chunk files the route loads, with their gzipped sizes. */
  chunks: Array<{ file: string; gzip: number }>;
  gzip: number;
  raw: number;
}

/** What a route loads beyond the entry: manifest keys (matched by suffix) of its on-demand chunks. */
export interface RouteSpec {
  route: string;
  onDemand: string[];
}

/** The routes measured: the two first routes a visitor lands on, and an admin queue (logged in). */
export const ROUTES: RouteSpec[] = [
  { route: '/', onDemand: [] },
  { route: '/login', onDemand: [] },
  {
    route: '/admin-pending-deposit (admin, logged in, after a toast)',
    onDemand: [
      'src/features/deposits/PendingDepositsPage.tsx',
      'socket.io-client/build/esm/index.js',
      'src/features/layout/AppToasts.tsx',
    ],
  },
];

export function readManifest(dist: string): Manifest {
  return JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8')) as Manifest;
}

const gzipOf = (file: string) => gzipSync(readFileSync(file)).length;

function keyFor(manifest: Manifest, suffix: string): string {
  const key = Object.keys(manifest).find(
    (k) => k === suffix || k.endsWith(`/${suffix}`) || k.endsWith(suffix),
  );
  if (!key) throw new Error(`no chunk for ${suffix} in the manifest`);
  return key;
}

/** The JS one route loads: the entry's and its on-demand chunks' static-import closure. */
export function routeLoad(dist: string, manifest: Manifest, spec: RouteSpec): RouteLoad {
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
  if (!entry) throw new Error('the manifest has no entry chunk');
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const dep of manifest[key]?.imports ?? []) visit(dep);
  };
  visit(entry);
  for (const suffix of spec.onDemand) visit(keyFor(manifest, suffix));
  const files = [...new Set([...seen].map((k) => manifest[k].file))].filter((f) => f.endsWith('.js'));
  const chunks = files.map((file) => ({ file, gzip: gzipOf(join(dist, file)) }));
  return {
    route: spec.route,
    chunks,
    gzip: chunks.reduce((s, c) => s + c.gzip, 0),
    raw: files.reduce((s, f) => s + statSync(join(dist, f)).size, 0),
  };
}

/** Every JS file of the build: what a browser would load without any splitting. */
export function wholeAppJs(dist: string): { files: number; gzip: number; raw: number } {
  const files = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js'));
  return {
    files: files.length,
    gzip: files.reduce((s, f) => s + gzipOf(join(dist, 'assets', f)), 0),
    raw: files.reduce((s, f) => s + statSync(join(dist, 'assets', f)).size, 0),
  };
}

/** JS files that point at a source map (a `//# sourceMappingURL=` comment), and *.map files. */
export function sourceMapLeaks(dist: string): string[] {
  const assets = readdirSync(join(dist, 'assets'));
  return [
    ...assets.filter((f) => f.endsWith('.map')),
    ...assets
      .filter((f) => f.endsWith('.js'))
      .filter((f) => /\/\/[#@] sourceMappingURL=/.test(readFileSync(join(dist, 'assets', f), 'utf8'))),
  ].map((f) => `assets/${f}`);
}

function runVite(args: string[], cwd: string): void {
  const r = spawnSync(viteBin, ['build', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) throw new Error(`vite build failed (${r.status}): ${r.stderr || r.stdout}`);
}

/** Builds the SPA with its own config into `outDir` (web/dist when omitted). */
export function buildSpa(outDir?: string): string {
  runVite(['--logLevel', 'warn', ...(outDir ? ['--outDir', outDir, '--emptyOutDir'] : [])], webRoot);
  return outDir ?? join(webRoot, 'dist');
}

/**
 * A minimal React + ReactDOM hello (createRoot(...).render(<h1>Hello</h1>)) built by the same vite with
 * the same React plugin, in a temporary folder under the repo's .cache (so node_modules resolve).
 */
export function helloReactJs(): { gzip: number; raw: number } {
  const parent = join(repoRoot, '.cache');
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, 'spa-hello-'));
  try {
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><html><body><div id="root"></div><script type="module" src="/main.jsx"></script></body></html>\n',
    );
    writeFileSync(
      join(dir, 'main.jsx'),
      "import { createRoot } from 'react-dom/client';\ncreateRoot(document.getElementById('root')).render(<h1>Hello</h1>);\n",
    );
    writeFileSync(
      join(dir, 'vite.config.mjs'),
      "import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\nexport default defineConfig({ plugins: [react()], logLevel: 'warn' });\n",
    );
    runVite([], dir);
    const assets = join(dir, 'dist/assets');
    const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
    return {
      gzip: js.reduce((s, f) => s + gzipOf(join(assets, f)), 0),
      raw: js.reduce((s, f) => s + statSync(join(assets, f)).size, 0),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
