/**
 * Use cases on the embedded store (SQLite ':memory:') with an in-memory LedgerPort whose answers the
 * test steers: races between the request path and the process manager, and the maturity path.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { createLogger } from '@meridian/platform/logger';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { DEFAULT_PLANS } from '../domain/plan.js';
import { investmentById } from '../projections/investmentView.js';
import { createFakeLedger } from '../testing/fakeLedger.js';
import type { InvestmentContext } from './context.js';
import { executeInvestment, metaOf } from './context.js';
import { decideInvestment, placeHoldFor, redriveOwed, settleDueForUser, startInvest } from './investments.js';

let store: ServiceStore;
let ledger: ReturnType<typeof createFakeLedger>;
let now: number;
let ctx: InvestmentContext;
const ADMIN = { userId: 'admin', role: 'admin' };

beforeEach(() => {
  now = Date.parse('2026-03-01T10:00:00.000Z');
  store = createSqliteServiceStore(':memory:', { clock: () => new Date(now) });
  ledger = createFakeLedger();
  ctx = {
    store,
    ledger: ledger.port,
    plans: DEFAULT_PLANS,
    clock: () => new Date(now),
    newId: randomUUID,
    logger: createLogger('investment-test'),
    personalData: new PersonalData(new MemoryPersonalDataKeys()),
  };
});
afterEach(() => store.close());

async function recordRequest(userId: string, id: string, amountCents: number) {
  await executeInvestment(
    ctx,
    id,
    () => ({
      type: 'RequestInvestment',
      investmentId: id,
      userId,
      isVerified: true,
      planName: 'Starter',
      plans: DEFAULT_PLANS,
      amountCents,
      availableDepositCents: amountCents,
      now: new Date(now),
    }),
    metaOf(ctx),
  );
}

describe('hold outcome races', () => {
  it('a hold placed after a refusal was recorded is released, never leaked', async () => {
    const u = 'u1';
    await recordRequest(u, 'i1', 20_000);
    // driver B asks first and waits at the ledger; driver A is refused (no funds) and records it;
    // then the funds arrive and B's hold is placed: B must give it back
    let calls = 0;
    let letB!: () => void;
    const bWaits = new Promise<void>((resolve) => (letB = resolve));
    ctx.ledger = {
      ...ledger.port,
      placeHold: async (input) => {
        calls++;
        if (calls === 1) {
          await bWaits;
          ledger.account(u).deposit = 50_000;
        }
        return ledger.port.placeHold(input);
      },
    };
    const b = placeHoldFor(ctx, 'i1');
    await waitFor(() => calls === 1, 'B asked the ledger');
    const a = await placeHoldFor(ctx, 'i1');
    expect(a).toMatchObject({ hold: 'refused', refusal: 'Insufficient balance' });
    letB();
    expect(await b).toMatchObject({ hold: 'refused', status: 'Rejected' });
    expect(ledger.holds.get('i1')?.status).toBe('released');
    expect(ledger.account(u)).toMatchObject({ deposit: 50_000, hold: 0 });
  });

  it('the request path and the process manager placing at once hold once', async () => {
    ledger.account('u2').deposit = 30_000;
    await recordRequest('u2', 'i2', 20_000);
    const [x] = await Promise.all([placeHoldFor(ctx, 'i2'), redriveOwed(ctx, 0), placeHoldFor(ctx, 'i2')]);
    expect(x?.hold).toBe('placed');
    expect(ledger.calls.filter((c) => c === 'placeHold:i2').length).toBeGreaterThanOrEqual(2);
    expect(ledger.account('u2')).toMatchObject({ deposit: 10_000, hold: 20_000 });
    expect((await investmentById(store, 'i2'))?.sync).toBe('none');
  });
});

describe('maturity through the port', () => {
  it('settles once even when the approval capture was lost, and deposit-maturity again settles nothing', async () => {
    ledger.account('u3').deposit = 50_000;
    const { investment } = await startInvest(ctx, {
      actor: { userId: 'u3', role: 'subscriber' },
      isVerified: true,
      planName: 'starter',
      amount: '500',
    });
    const capture = ledger.port.captureHold;
    ledger.port.captureHold = async () => Promise.reject(new Error('connection reset'));
    await decideInvestment(ctx, { actor: ADMIN, investmentId: investment.investmentId, decision: 'approve' });
    ledger.port.captureHold = capture;
    expect(ledger.account('u3')).toMatchObject({ invested: 0, hold: 50_000 });

    now += 24 * 60 * 60 * 1000; // Starter lasts one day
    const first = await settleDueForUser(ctx, { actor: { userId: 'u3', role: 'subscriber' } });
    expect(first.matured.map((m) => m.status)).toEqual(['Ended']);
    expect(ledger.account('u3')).toMatchObject({ invested: 0, hold: 0, profit: 56_000 });
    const again = await settleDueForUser(ctx, { actor: { userId: 'u3', role: 'subscriber' } });
    expect(again.matured).toEqual([]);
    expect(ledger.calls.filter((c) => c.startsWith('settleMaturity')).length).toBe(1);
  });
});
