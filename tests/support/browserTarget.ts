/**
 * What every standalone browser journey (tests/e2e/*.e2e.spec.ts) sets up the same way: a temp data dir, a
 * private copy of web/dist (or of $WEB_DIST), the standalone target started with it and a Chromium launched (in beforeAll),
 * all stopped and removed afterwards (in afterAll); browser contexts watched for console errors; the
 * journey's steps run in order, the later ones skipped once one fails.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { ConsoleWatcher, launchChromium } from './browser.js';
import { send } from './journey.js';
import { ROOT, snapshotWebDist, startTarget, stopTarget, type RunningTarget } from './standalone.js';

export const SHOTS = join(ROOT, 'artifacts/screenshots');

export interface BrowserTargetOptions {
  /** The temp data dir is named `meridian-e2e-<name>-…`. */
  name: string;
  admin: { email: string; password: string };
  /** Environment besides WEB_DIST. */
  env?: Record<string, string>;
  /** Runs before the target starts: a fixed port (default a free one) and more environment. */
  setup?: () => Promise<{ port?: number; env?: Record<string, string> }>;
  /** Context options every newContext gets besides its viewport and baseURL. */
  acceptDownloads?: boolean;
  viewport?: { width: number; height: number };
  /**
   * Allows the console error of the dashboard's GET api/invest/deposit-maturity (ignored by the page by
   * design) while this build does not serve the route at all (404 where a served route says 401).
   */
  allowUnservedMaturity?: boolean;
}

export interface BrowserTarget {
  readonly watcher: ConsoleWatcher;
  /** The target's URL, set once beforeAll has run. */
  readonly url: string;
  readonly target: RunningTarget | undefined;
  /** A browser context on the target (its baseURL), watched for console errors under `label`. */
  newContext(label: string, viewport?: { width: number; height: number }): Promise<BrowserContext>;
  assertNoConsoleErrors(): void;
  /** The admin of `context` claims an item (an admin decides only what they claimed: gateway/src/live/claims.ts). */
  claim(
    context: BrowserContext,
    kind: 'deposit' | 'investment' | 'withdrawal' | 'kyc',
    id: string,
  ): Promise<void>;
}

/** Declares the beforeAll/afterAll hooks of a standalone browser journey and returns what its steps use. */
export function useBrowserTarget(options: BrowserTargetOptions): BrowserTarget {
  const watcher = new ConsoleWatcher();
  const dataDir = mkdtempSync(join(tmpdir(), `meridian-e2e-${options.name}-`));
  const viewport = options.viewport ?? { width: 1280, height: 800 };
  let webDist = '';
  let target: RunningTarget | undefined;
  let browser: Browser | undefined;
  let url = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // a private copy: another `vite build` may rewrite web/dist meanwhile
    webDist = await snapshotWebDist(process.env.WEB_DIST ?? join(ROOT, 'web/dist'));
    const more = (await options.setup?.()) ?? {};
    target = await startTarget({
      dataDir,
      adminEmail: options.admin.email,
      adminPassword: options.admin.password,
      port: more.port,
      env: { WEB_DIST: webDist, ...options.env, ...more.env },
    });
    url = target.url;
    browser = await launchChromium();
    if (options.allowUnservedMaturity && (await fetch(`${url}/api/invest/deposit-maturity`)).status === 404)
      watcher.expect({
        why: 'api/invest/deposit-maturity is not served by this build',
        text: /status of 404/,
        url: /\/api\/invest\/deposit-maturity$/,
        times: Number.POSITIVE_INFINITY,
      });
  });

  afterAll(async () => {
    await browser?.close();
    if (target) await stopTarget(target);
    rmSync(dataDir, { recursive: true, force: true });
    if (webDist) rmSync(webDist, { recursive: true, force: true });
  });

  return {
    watcher,
    get url() {
      return url;
    },
    get target() {
      return target;
    },
    async newContext(label, size = viewport) {
      const context = await browser!.newContext({
        viewport: size,
        baseURL: url,
        ...(options.acceptDownloads ? { acceptDownloads: true } : {}),
      });
      return watcher.watch(context, label);
    },
    assertNoConsoleErrors() {
      expect(watcher.unexpected(), 'console errors or page errors nobody expected').toEqual([]);
    },
    async claim(context, kind, id) {
      await send(context, url, 'post', '/api/admin/claims', { kind, id });
    },
  };
}

/**
 * Inside a journey's describe block: one journey in steps, so after a failed step the later ones are
 * skipped, not failed again; `onFail` runs once, at the first failure (e.g. to print log tails).
 */
export function stepsInOrder(onFail?: (step: string) => void): void {
  let brokenAt = '';
  afterEach(({ task }) => {
    if (task.result?.state === 'fail' && !brokenAt) {
      brokenAt = task.name;
      onFail?.(brokenAt);
    }
  });
  beforeEach(({ skip }) => {
    if (brokenAt) skip(`an earlier step failed: ${brokenAt}`);
  });
}
