/**
 * What the tests of a spec file share: started before them (beforeAll), stopped after them (afterAll).
 * `set` hands it to the file's own variables.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { adminBrowser, startTestComposition, type TestComposition } from './composition.js';
import { HttpSession } from './httpSession.js';
import { expectInvariants, startMoneyComposition } from './money.js';

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

/** What `start` starts (`t`) with `more` of it; `t` is stopped again when `more` fails. */
export async function startedWith<T extends { stop(): Promise<void> }, M>(
  start: () => Promise<T>,
  more: (t: T) => Promise<M>,
): Promise<M & { t: T; stop: () => Promise<void> }> {
  const t = await start();
  try {
    return { ...(await more(t)), t, stop: () => t.stop() };
  } catch (err) {
    await t.stop();
    throw err;
  }
}

/** The standalone composition and its admin (the REST contract specs', restContract.*.int.spec.ts, and others). */
export const startRestContract = () =>
  startedWith(startTestComposition, async (t) => ({ url: t.url, admin: await adminBrowser(t.url) }));

/**
 * The REST contract specs' composition for a spec file's tests, handed to `set`; answers a maker of fresh
 * browsers that have the CSRF cookie but no session.
 */
export function restContractSpec(
  set: (started: Awaited<ReturnType<typeof startRestContract>>) => void,
): () => HttpSession {
  let url = '';
  sharedForSpec(startRestContract, (started) => {
    url = started.url;
    set(started);
  });
  return () => new HttpSession(url);
}

/** The money composition and its admin. */
export const startMoneyAdmin = () =>
  startedWith(startMoneyComposition, async (t) => ({ admin: await adminBrowser(t.url) }));

/**
 * The money composition and its admin for a spec file's tests, the ledger's invariants checked after each
 * test (expectInvariants), once the sockets the test left in `sockets` are closed.
 */
export function moneySpec(
  set: (started: { t: TestComposition; admin: HttpSession }) => void,
  sockets: { close(): void }[] = [],
): void {
  let t: TestComposition;
  sharedForSpec(startMoneyAdmin, (started) => {
    t = started.t;
    set(started);
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await expectInvariants(t);
  });
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
