/**
 * What every standalone browser journey (tests/e2e/*.e2e.spec.ts) sets up the same way: a temp data dir, a
 * private copy of web/dist (or of $WEB_DIST), the standalone target started with it and a Chromium launched (in beforeAll),
 * all stopped and removed afterwards (in afterAll); browser contexts watched for console errors; the
 * journey's steps run in order, the later ones skipped once one fails.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { ConsoleWatcher, launchChromium } from './browser.js';
import { loginWithCode, registerAndVerify, send, type Investor } from './journey.js';
import { ROOT, snapshotWebDist, startTarget, stopTarget, type RunningTarget } from './standalone.js';

export const SHOTS = join(ROOT, 'artifacts/screenshots');

/** The two widths the journeys look at a screen in: desktop, then phone. */
export const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

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
}

export interface BrowserTarget {
  readonly watcher: ConsoleWatcher;
  /** The target's URL, set once beforeAll has run. */
  readonly url: string;
  readonly target: RunningTarget | undefined;
  /** A browser context on the target (its baseURL), watched for console errors under `label`. */
  newContext(label: string, viewport?: { width: number; height: number }): Promise<BrowserContext>;
  assertNoConsoleErrors(): void;
  /**
   * The investor registers and verifies in a context of their own; then the admin logs in from another (a
   * new browser: the emailed code). Both contexts and pages, the admin's on /dashboard.
   */
  investorAndAdmin(
    investor: Investor,
  ): Promise<{ inv: BrowserContext; invPage: Page; adm: BrowserContext; admPage: Page }>;
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
  });

  afterAll(async () => {
    await browser?.close();
    if (target) await stopTarget(target);
    rmSync(dataDir, { recursive: true, force: true });
    if (webDist) rmSync(webDist, { recursive: true, force: true });
  });

  async function newContext(
    label: string,
    size: { width: number; height: number } = viewport,
  ): Promise<BrowserContext> {
    const context = await browser!.newContext({
      viewport: size,
      baseURL: url,
      ...(options.acceptDownloads ? { acceptDownloads: true } : {}),
    });
    return watcher.watch(context, label);
  }

  return {
    watcher,
    get url() {
      return url;
    },
    get target() {
      return target;
    },
    newContext,
    assertNoConsoleErrors() {
      expect(watcher.unexpected(), 'console errors or page errors nobody expected').toEqual([]);
    },
    async investorAndAdmin(investor) {
      const inv = await newContext('investor');
      const invPage = await inv.newPage();
      await registerAndVerify(invPage, url, investor);
      const adm = await newContext('admin');
      const admPage = await adm.newPage();
      await loginWithCode(admPage, url, watcher, options.admin.email, options.admin.password);
      return { inv, invPage, adm, admPage };
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

/** A running target for a two-browser journey (tests/support/moneyJourney.ts, supportJourney.ts), serving web/dist. */
export interface JourneyTarget {
  /** The investor's browser context's baseURL (also where the emails' links point). */
  investorUrl: string;
  /** The admin's browser context's baseURL (the same as investorUrl on a single-process target). */
  adminUrl: string;
  admin: { email: string; password: string };
  /** Printed after a failed step (log tails). */
  diagnose?: () => string;
  stop(): Promise<void>;
}

export interface JourneyOptions {
  /** The describe block's title. */
  title: string;
  /** Starts the target (or hands over one already running); the journey calls its stop() afterwards. */
  start: () => Promise<JourneyTarget>;
  /** When set, the whole journey is skipped (the caller prints why). */
  skipReason?: string | null;
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
}

export interface JourneyBrowsers {
  readonly watcher: ConsoleWatcher;
  /** The started target, once beforeAll has run. */
  readonly target: JourneyTarget;
  newContext(label: string, baseURL: string): Promise<BrowserContext>;
  assertNoConsoleErrors(): void;
}

/**
 * Inside a two-browser journey's describe block: its steps in order, the target started and Chromium launched
 * in beforeAll (after `prepare`), both stopped in afterAll, with the target's diagnose() printed after a failure.
 */
export function useJourneyBrowsers(
  options: JourneyOptions,
  prepare?: (target: JourneyTarget) => void,
): JourneyBrowsers {
  const watcher = new ConsoleWatcher();
  let target: JourneyTarget | undefined;
  let browser: Browser | undefined;
  let brokenAt = '';
  stepsInOrder((step) => {
    brokenAt = step;
  });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    target = await options.start();
    prepare?.(target);
    browser = await launchChromium();
  }, options.startTimeoutMs);

  afterAll(async () => {
    await browser?.close();
    if (brokenAt && target?.diagnose)
      console.log(`[${options.title}] failed at "${brokenAt}":\n${target.diagnose()}`);
    await target?.stop();
  }, options.stopTimeoutMs);

  return {
    watcher,
    get target() {
      return target!;
    },
    async newContext(label, baseURL) {
      const context = await browser!.newContext({ viewport: { width: 1280, height: 800 }, baseURL });
      return watcher.watch(context, label);
    },
    assertNoConsoleErrors() {
      expect(watcher.unexpected(), 'console errors or page errors nobody expected').toEqual([]);
    },
  };
}

/** A journey's start(): the standalone target on a private copy of web/dist, one URL for both browsers. */
export async function startStandaloneJourney(
  name: string,
  admin: { email: string; password: string },
  env: Record<string, string> = {},
): Promise<JourneyTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), `meridian-e2e-${name}-`));
  const webDist = await snapshotWebDist(); // a private copy: another `vite build` may rewrite web/dist meanwhile
  const cleanUp = () => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(webDist, { recursive: true, force: true });
  };
  try {
    const target = await startTarget({
      dataDir,
      adminEmail: admin.email,
      adminPassword: admin.password,
      env: { WEB_DIST: webDist, ...env },
    });
    return {
      investorUrl: target.url,
      adminUrl: target.url,
      admin,
      diagnose: () => target.output().split('\n').slice(-40).join('\n'),
      async stop() {
        await stopTarget(target);
        cleanUp();
      },
    };
  } catch (err) {
    cleanUp();
    throw err;
  }
}
