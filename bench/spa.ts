/**
 * `make bench` module `spa`: the gzipped JavaScript each route of the SPA loads, read
 * from vite's manifest of a production build made in this run (web/dist is rebuilt), against two
 * baselines measured in the same run: the whole app's JS (every chunk: what one bundle without splitting
 * would weigh) and a minimal React + ReactDOM hello built by the same vite. The goal: the first route
 * (`/`, `/login`) ≤ 120 KB (120 000 bytes) gzipped. A size, not a timing: the same on any machine.
 */
import {
  buildSpa,
  FIRST_ROUTE_BUDGET,
  helloReactJs,
  readManifest,
  routeLoad,
  ROUTES,
  sourceMapLeaks,
  wholeAppJs,
} from '../web/scripts/bundleSize.js';
import { table } from './table.js';

export interface SpaRouteFigure {
  route: string;
  chunks: number;
  /** gzipped bytes */
  gzip: number;
  raw: number;
  vsWholeApp: number;
  vsHelloReact: number;
}

export type SpaBenchResult =
  | {
      routes: SpaRouteFigure[];
      wholeApp: { files: number; gzip: number; raw: number };
      helloReact: { gzip: number; raw: number };
      budget: number;
      /** `/` and `/login` both within the budget. */
      goalMet: boolean;
      sourceMapLeaks: string[];
      buildSeconds: number;
    }
  | { skipped: string };

export function benchSpa(): SpaBenchResult {
  const t0 = Date.now();
  const dist = buildSpa();
  const buildSeconds = +((Date.now() - t0) / 1000).toFixed(1);
  const manifest = readManifest(dist);
  const wholeApp = wholeAppJs(dist);
  const helloReact = helloReactJs();
  const routes = ROUTES.map((spec): SpaRouteFigure => {
    const load = routeLoad(dist, manifest, spec);
    return {
      route: load.route,
      chunks: load.chunks.length,
      gzip: load.gzip,
      raw: load.raw,
      vsWholeApp: +(load.gzip / wholeApp.gzip).toFixed(3),
      vsHelloReact: +(load.gzip / helloReact.gzip).toFixed(2),
    };
  });
  const first = routes.filter((r) => r.route === '/' || r.route === '/login');
  return {
    routes,
    wholeApp,
    helloReact,
    budget: FIRST_ROUTE_BUDGET,
    goalMet: first.length === 2 && first.every((r) => r.gzip <= FIRST_ROUTE_BUDGET),
    sourceMapLeaks: sourceMapLeaks(dist),
    buildSeconds,
  };
}

const kb = (bytes: number) => +(bytes / 1000).toFixed(1);

/** Table rows: the baselines first, then each route. */
export function spaRows(r: Exclude<SpaBenchResult, { skipped: string }>): Array<Array<string | number>> {
  return [
    [
      'baseline: React + ReactDOM hello',
      1,
      kb(r.helloReact.gzip),
      kb(r.helloReact.raw),
      +(r.helloReact.gzip / r.wholeApp.gzip).toFixed(3),
      1,
    ],
    [
      'baseline: the whole app (every chunk)',
      r.wholeApp.files,
      kb(r.wholeApp.gzip),
      kb(r.wholeApp.raw),
      1,
      +(r.wholeApp.gzip / r.helloReact.gzip).toFixed(2),
    ],
    ...r.routes.map((x) => [x.route, x.chunks, kb(x.gzip), kb(x.raw), x.vsWholeApp, x.vsHelloReact]),
  ];
}

export const SPA_HEADER = ['JS loaded', 'chunks', 'gzip KB', 'raw KB', '÷ whole app', '÷ hello'];

export function spaGoalLine(r: Exclude<SpaBenchResult, { skipped: string }>): string {
  const first = r.routes.filter((x) => x.route === '/' || x.route === '/login');
  const worst = Math.max(...first.map((x) => x.gzip));
  return (
    `goal: first route ≤ ${kb(r.budget)} KB gzipped: ${r.goalMet ? 'met' : 'NOT met'} ` +
    `(${kb(worst)} KB); source maps in the build: ${r.sourceMapLeaks.length ? r.sourceMapLeaks.join(', ') : 'none'}`
  );
}

/** Prints the module's table (after the other modules' tables). */
export function printSpa(r: SpaBenchResult): void {
  if ('skipped' in r) {
    console.log(`\nSPA JavaScript by route: skipped: ${r.skipped}`);
    return;
  }
  console.log(
    `\nSPA JavaScript by route (gzipped; vite production build of this run, ${r.buildSeconds} s; 1 KB = 1000 bytes)`,
  );
  table(SPA_HEADER, spaRows(r));
  console.log(`  ${spaGoalLine(r)}`);
}

/** The figures compared between runs. */
export function spaHeadline(r: SpaBenchResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  const h: Record<string, number> = {};
  for (const x of r.routes.filter((y) => y.route === '/' || y.route === '/login')) {
    h[`SPA first route ${x.route} gzipped JS (KB)`] = kb(x.gzip);
    h[`SPA first route ${x.route} ÷ whole app JS`] = x.vsWholeApp;
  }
  h['SPA whole app JS ÷ React hello'] = +(r.wholeApp.gzip / r.helloReact.gzip).toFixed(2);
  return h;
}
