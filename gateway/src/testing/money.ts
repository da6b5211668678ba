/**
 * Helpers of the money integration specs (gateway/src/money*.int.spec.ts): verified investors, deposits
 * confirmed by the admin, sockets that record every push, the ledger reconciliation check.
 */
import { expect } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { expectLedgerInvariants } from '@meridian/ledger/testing/invariants';
import {
  adminBrowser,
  registerUser,
  startTestComposition,
  verifiedUser,
  type Account,
  type TestComposition,
} from './composition.js';
import type { HttpSession } from './httpSession.js';

export { waitFor };

/** Plans lasting about a second (PLANS_JSON), so maturity happens inside a test. */
export const FAST_PLANS = JSON.stringify([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: 1_200 },
  { name: 'Bronze', minAmount: 500, maxAmount: 1500, ratePercent: 15, durationMs: 60 * 60_000 },
]);

export async function startMoneyComposition(env: Record<string, string> = {}): Promise<TestComposition> {
  return startTestComposition({ env: { PLANS_JSON: FAST_PLANS, ...env } });
}

/** A registered user whose email is verified: the one helper of composition.ts. */
export { verifiedUser };

export interface Balances {
  balance: number;
  investmentBalance: number;
  totalMaturityAmount: number;
}

export async function balancesOf(browser: HttpSession): Promise<Balances> {
  const res = await browser.get('/api/users/getUser');
  expect(res.status).toBe(200);
  const { balance, investmentBalance, totalMaturityAmount } = res.body as Balances;
  return { balance, investmentBalance, totalMaturityAmount };
}

/**
 * Waits until getUser shows `expected` (balances reach identity through ledger events): 10 s by default,
 * `wait` for a slower topology (the cluster's broker).
 */
export async function waitForBalances(
  browser: HttpSession,
  expected: Partial<Balances>,
  wait: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Balances> {
  return waitFor(
    async () => {
      const b = await balancesOf(browser);
      return Object.entries(expected).every(([k, v]) => b[k as keyof Balances] === v) ? b : null;
    },
    { timeoutMs: 10_000, ...wait, message: `balances ${JSON.stringify(expected)}` },
  );
}

/** POST api/payments/create → the deposit's id. */
export async function requestDeposit(browser: HttpSession, amount: number | string): Promise<string> {
  const res = await browser.post('/api/payments/create', { amount });
  if (res.status !== 201) throw new Error(`deposit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.transactionId as string;
}

/** An admin's decision on a deposit as the SPA sends it (the status named, notes optional); the answer. */
export const decidePayment = (
  admin: HttpSession,
  decision: 'confirm' | 'reject',
  transactionId: string,
  notes?: string,
) =>
  admin.patch(`/api/payments/${decision}Payment`, {
    transactionId,
    status: decision === 'confirm' ? 'Confirmed' : 'Rejected',
    ...(notes === undefined ? {} : { notes }),
  });

export async function confirmDeposit(admin: HttpSession, transactionId: string, notes = ''): Promise<void> {
  const res = await decidePayment(admin, 'confirm', transactionId, notes);
  if (res.status !== 200) throw new Error(`confirm failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A verified investor with `amount` dollars on their Deposit Balance (deposit confirmed by the admin). */
export async function fundedInvestor(url: string, admin: HttpSession, amount: number): Promise<Account> {
  const investor = await verifiedUser(url);
  await confirmDeposit(admin, await requestDeposit(investor.browser, amount));
  await waitForBalances(investor.browser, { balance: amount });
  return investor;
}

export interface Push {
  event: string;
  payload: Record<string, unknown>;
}

/** Matches a balances/changed push that shows a Deposit Balance of `balance`. */
export const isBalancePush =
  (balance: number) =>
  (p: Push): boolean =>
    p.event === 'balances/changed' && (p.payload.balances as { balance: number }).balance === balance;

/** A socket.io client that records every push it receives. */
export class RecordingSocket {
  readonly pushes: Push[] = [];
  constructor(readonly socket: Socket) {
    socket.onAny((event: string, payload: unknown) => {
      this.pushes.push({ event, payload: (payload ?? {}) as Record<string, unknown> });
    });
  }

  /** Waits for a push matching `match` (among all received so far and later). */
  waitFor(match: (p: Push) => boolean, message = 'push'): Promise<Push> {
    return waitFor(() => this.pushes.find(match) ?? null, { timeoutMs: 10_000, message });
  }

  /** The position of the last push that carried one. */
  lastPosition(): string | null {
    for (let i = this.pushes.length - 1; i >= 0; i--) {
      const p = this.pushes[i].payload.position;
      if (typeof p === 'string') return p;
    }
    return null;
  }

  close(): void {
    this.socket.disconnect();
  }
}

/** Opens a socket with the browser's cookies; resolves once 'ready' arrived. */
export function openSocket(
  url: string,
  browser: HttpSession,
  lastPosition: string | null = null,
): Promise<RecordingSocket> {
  const socket = connect(url, {
    path: '/socket.io',
    transports: ['websocket'],
    extraHeaders: { cookie: browser.cookieHeader() },
    auth: { lastPosition },
    reconnection: false,
  });
  const recording = new RecordingSocket(socket);
  return new Promise((resolve, reject) => {
    socket.once('ready', () => resolve(recording));
    socket.once('connect_error', reject);
  });
}

export async function expectInvariants(t: TestComposition): Promise<void> {
  await t.app.money.flushOutboxes();
  await expectLedgerInvariants(t.app.money.ledgerStore);
}

export { adminBrowser, registerUser };
