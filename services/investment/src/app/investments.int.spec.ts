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
import type { ServiceStore, StoreTx } from '@meridian/platform/ports/serviceStore';
import { precondition } from '@meridian/platform/eventSourcing/errors';
import { DEFAULT_PLANS } from '../domain/plan.js';
import { toInvestmentStreamId } from '../domain/investment.js';
import { COLLECTIONS, type InvestmentDoc, investmentById } from '../projections/investmentView.js';
import { createFakeLedger } from '../testing/fakeLedger.js';
import type { InvestmentContext } from './context.js';
import { executeInvestment, metaOf } from './context.js';
import {
  decideInvestment,
  placeHoldFor,
  redriveOwed,
  settleDueForUser,
  settleDueInBatches,
  startInvest,
  syncLedger,
} from './investments.js';

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

/** A started and approved Starter investment of `userId` (its funds deposited first). */
async function approvedInvestment(userId: string, amount = '500'): Promise<string> {
  ledger.account(userId).deposit += Number(amount) * 100;
  const { investment } = await startInvest(ctx, {
    actor: { userId, role: 'subscriber' },
    isVerified: true,
    planName: 'starter',
    amount,
  });
  await decideInvestment(ctx, { actor: ADMIN, investmentId: investment.investmentId, decision: 'approve' });
  return investment.investmentId;
}

const eventTypes = async (id: string) =>
  (await store.readStream(toInvestmentStreamId(id))).events.map((e) => e.type);

describe('the document as the command state', () => {
  it('a document behind its stream is caught up from the stream, never decided on', async () => {
    const capture = ledger.port.captureHold;
    ledger.port.captureHold = async () => Promise.reject(new Error('connection reset'));
    const id = await approvedInvestment('u5');
    ledger.port.captureHold = capture;
    const behind = (await investmentById(store, id))!;
    expect(behind).toMatchObject({ status: 'Active', sync: 'capture', funds: null });
    await syncLedger(ctx, id); // HoldCaptured
    // the document put back as it was before the capture was recorded (a read model behind its stream)
    await store.transaction((tx) => tx.put(COLLECTIONS.investments, id, behind));

    now += 24 * 60 * 60 * 1000;
    const settled = await settleDueForUser(ctx, { actor: { userId: 'u5', role: 'subscriber' } });
    expect(settled.matured.map((m) => m.investmentId)).toEqual([id]);
    const doc = (await investmentById(store, id))!;
    const types = await eventTypes(id);
    expect(doc).toMatchObject({ status: 'Ended', sync: 'none', funds: 'settled', version: types.length });
    // the capture recorded once: the stale document's "capture owed" was not decided on
    expect(types.filter((t) => t === 'HoldCaptured')).toHaveLength(1);
    expect(ledger.account('u5')).toMatchObject({ invested: 0, hold: 0, profit: 56_000 });

    // a refusal on a document behind its stream is checked against the stream
    await store.transaction((tx) => tx.put(COLLECTIONS.investments, id, behind));
    await expect(
      decideInvestment(ctx, { actor: ADMIN, investmentId: id, decision: 'reject' }),
    ).rejects.toThrow('This investment has already ended');
  });
});

describe('the batch pass', () => {
  it('asks the ledger first and records each settlement in one append; a refused one ends owing it', async () => {
    const ids = [
      await approvedInvestment('u6'),
      await approvedInvestment('u6'),
      await approvedInvestment('u7'),
    ];
    now += 24 * 60 * 60 * 1000;
    let refuse = ids[2];
    const batches: string[][] = [];
    ctx.ledger = {
      ...ledger.port,
      async settleMaturities(items) {
        batches.push(items.map((i) => i.investmentId));
        const results = [];
        for (const i of items) {
          if (i.investmentId === refuse) {
            results.push({
              investmentId: i.investmentId,
              settled: false as const,
              error: precondition('no'),
            });
            continue;
          }
          await ledger.port.captureHold({ userId: i.userId, holdId: i.investmentId, idempotencyKey: '' });
          await ledger.port.settleMaturity(i);
          results.push({ investmentId: i.investmentId, settled: true as const });
        }
        return results;
      },
    };
    // every append made through the store, by stream
    const appends: string[] = [];
    const real = store;
    ctx.store = {
      ...real,
      transaction: (fn) =>
        real.transaction((tx) =>
          fn(
            new Proxy(tx, {
              get(target, key, receiver) {
                if (key !== 'appendToStream') return Reflect.get(target, key, receiver) as unknown;
                return ((streamId: string, ...rest: unknown[]) => {
                  appends.push(streamId);
                  return (target.appendToStream as (...a: unknown[]) => unknown)(streamId, ...rest);
                }) as StoreTx['appendToStream'];
              },
            }),
          ),
        ),
    };

    expect(await settleDueInBatches(ctx, { batchSize: 10 })).toBe(2);
    expect(batches.map((b) => [...b].sort())).toEqual([[...ids].sort()]);
    expect(appends.sort()).toEqual(ids.map(toInvestmentStreamId).sort());
    for (const id of ids.slice(0, 2)) {
      expect((await eventTypes(id)).slice(-2)).toEqual(['InvestmentMatured', 'MaturitySettled']);
      expect(await investmentById(store, id)).toMatchObject({
        status: 'Ended',
        sync: 'none',
        funds: 'settled',
      });
    }
    expect(await investmentById(store, ids[2])).toMatchObject({ status: 'Ended', sync: 'settle' });
    expect(ledger.account('u6')).toMatchObject({ invested: 0, profit: 112_000 });

    // the next pass settles what was refused (first), and nothing twice
    refuse = '';
    appends.length = 0;
    expect(await settleDueInBatches(ctx, { batchSize: 10 })).toBe(1);
    expect(batches.slice(1)).toEqual([[ids[2]]]);
    expect(appends).toEqual([toInvestmentStreamId(ids[2])]);
    expect((await eventTypes(ids[2])).filter((t) => t === 'InvestmentMatured')).toHaveLength(1);
    expect(await investmentById(store, ids[2])).toMatchObject({ status: 'Ended', sync: 'none' });
    expect(ledger.account('u7')).toMatchObject({ invested: 0, profit: 56_000 });
    expect(await settleDueInBatches(ctx, { batchSize: 10 })).toBe(0);
    expect(batches).toHaveLength(2);
    const docs = await store.find<InvestmentDoc>(COLLECTIONS.investments, { where: { status: 'Ended' } });
    expect(docs).toHaveLength(3);
  });
});
