/**
 * Steps the API journeys against the standalone target share (tests/api/*.int.spec.ts,
 * tests/standalone/*.int.spec.ts): a target started, and started again on the same data, as often as a spec
 * needs; a spec's one journey, declared with the target already started; the new-browser code login through
 * the dev mailbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listMail, loginCodeOf, waitForMail, type HttpSession } from '@meridian/gateway/testing/httpSession';
import { startTarget, stopTarget, type RunningTarget, type TargetOptions } from './standalone.js';

export interface RestartableTarget {
  /** The DATA_DIR every start shares. */
  dataDir: string;
  /** Spawns the target like `make start` on that DATA_DIR (`overrides` over the declared options). */
  start(overrides?: Partial<Omit<TargetOptions, 'dataDir'>>): Promise<RunningTarget>;
}

/** Declares the afterAll that stops every start and removes the data dir (`meridian-<name>-…`). */
export function restartableTarget(name: string, options: Omit<TargetOptions, 'dataDir'>): RestartableTarget {
  const dataDir = mkdtempSync(join(tmpdir(), `meridian-${name}-`));
  const running: RunningTarget[] = [];
  afterAll(async () => {
    for (const r of running) await stopTarget(r);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    async start(overrides = {}) {
      const target = await startTarget({ ...options, ...overrides, dataDir });
      running.push(target);
      return target;
    },
  };
}

export interface TargetJourney {
  /** The describe block's title. */
  title: string;
  /** The one test's title: the journey's steps. */
  journey: string;
  timeout: number;
  /** Why the journey cannot run here, or null. */
  skipReason?: string | null;
}

/** Declares `describe(title)` with the one `it(journey)`, whose body gets the target's first start. */
export function describeTargetJourney(
  target: RestartableTarget,
  spec: TargetJourney,
  body: (started: RunningTarget) => Promise<void>,
): void {
  describe.skipIf(spec.skipReason != null)(spec.title, () => {
    it(spec.journey, { timeout: spec.timeout }, async () => body(await target.start()));
  });
}

/** The new-browser code flow: sendLoginCode (answers 200), the code from the mailbox, loginWithCode's answer. */
export async function loginWithEmailedCode(jar: HttpSession, email: string) {
  const known = new Set((await listMail(jar.baseUrl, email)).map((m) => m.id));
  const sent = await jar.post(`/api/users/sendLoginCode/${encodeURIComponent(email)}`);
  expect(sent.status).toBe(200);
  const mail = await waitForMail(
    jar.baseUrl,
    email,
    (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text),
    15_000,
  );
  return jar.post(`/api/users/loginWithCode/${encodeURIComponent(email)}`, { loginCode: loginCodeOf(mail) });
}
