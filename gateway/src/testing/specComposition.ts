/**
 * What the tests of a spec file share: started before them (beforeAll), stopped after them (afterAll).
 * `set` hands it to the file's own variables.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { adminBrowser, startTestComposition, type TestComposition } from './composition.js';
import type { HttpSession } from './httpSession.js';

export function sharedForSpec<S extends { stop(): Promise<void> }>(
  start: () => Promise<S>,
  set: (started: S) => void,
): void {
  let started: S | undefined;
  beforeAll(async () => {
    started = await start();
    set(started);
  });
  afterAll(async () => {
    await started?.stop();
  });
}

/** The REST contract specs' composition (restContract.*.int.spec.ts): the standalone one and its admin. */
export async function startRestContract(): Promise<{
  t: TestComposition;
  url: string;
  admin: HttpSession;
  stop: () => Promise<void>;
}> {
  const t = await startTestComposition();
  try {
    return { t, url: t.url, admin: await adminBrowser(t.url), stop: () => t.stop() };
  } catch (err) {
    await t.stop();
    throw err;
  }
}

const USER_KEYS = [
  '_id',
  'name',
  'email',
  'phone',
  'country',
  'bio',
  'photo',
  'role',
  'isVerified',
  'kycStatus',
  'balance',
  'investmentBalance',
  'totalMaturityAmount',
  'referralCode',
  'isImpersonated',
  'kyc',
  'createdAt',
].sort();

/** The user as the account routes answer it: the spec's fields, balances in dollars, no secrets. */
export function expectUserShape(u: Record<string, unknown>) {
  expect(
    Object.keys(u)
      .filter((k) => k !== 'message')
      .sort(),
  ).toEqual(USER_KEYS);
  expect(u.kyc).toEqual({ frontDoc: expect.any(String), backDoc: expect.any(String) });
  for (const k of ['balance', 'investmentBalance', 'totalMaturityAmount']) expect(typeof u[k]).toBe('number');
  const text = JSON.stringify(u).toLowerCase();
  for (const secret of ['password', 'hash', 'token']) expect(text).not.toContain(`"${secret}`);
}
