/**
 * The close-of-business batch: due investments matured and settled through the ledger's SettleMaturities,
 * a batch per call. A crash mid-batch (the ledger settled a batch but the service died before recording
 * it, and the batches after it never ran) is completed after a restart: every investment settled exactly
 * once, balances exact, the ledger's invariants intact.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '@meridian/platform/logger';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { unavailable } from '@meridian/platform/eventSourcing/errors';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { TransactionPosted } from '../../../ledger/src/domain/account.js';
import { ledgerInvariantProblems } from '../../../ledger/src/testing/invariants.js';
import { COLLECTIONS, type InvestmentDoc } from '../projections/investmentView.js';
import { ADMIN, caller, startStack, type Stack } from '../testing/harness.js';
import type { InvestmentContext } from './context.js';
import { MATURITY_CALLS_IN_FLIGHT, settleDueInBatches } from './investments.js';
import { overdueMaturities } from './metrics.js';
import type { LedgerPort } from './ports.js';

const PLANS = JSON.stringify([
  { name: 'Quick', minAmount: 100, maxAmount: 1000, ratePercent: 10, durationMs: 6_000 },
]);

let stack: Stack;
beforeEach(async () => {
  stack = await startStack({ plansJson: PLANS });
});
afterEach(async () => {
  expect(await ledgerInvariantProblems(stack.ledgerStore)).toEqual([]);
  await stack.stop();
});

/** Maturity settlements the ledger posted, per investment id. */
async function maturityPostings(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let after = 0; ;) {
    const page = await stack.ledgerStore.readAll(after, 1000);
    if (page.length === 0) return counts;
    after = page[page.length - 1].position;
    for (const e of page) {
      if (e.type !== 'TransactionPosted') continue;
      const tx = e.data as TransactionPosted['data'];
      const id = tx.references.investmentId;
      if (tx.reason === 'investment_matured' && id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
}

/**
 * Four due investments of 100.00 for each of `users` (funded 1,000.00), approved, with the service stopped
 * before any falls due (its scheduler would settle them), waited until all are due.
 */
async function dueInvestments(users: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const u of users) {
    await stack.fund(u, '1000');
    for (let i = 0; i < 4; i++) {
      const { investment } = await stack.call('startInvest', {
        caller: caller(u),
        callerRole: 'subscriber',
        callerVerified: true,
        planName: 'Quick',
        amount: '100',
        investmentId: '',
      });
      ids.push(investment!.investmentId);
    }
  }
  for (const id of ids)
    await stack.call('approveInvestment', {
      caller: caller(ADMIN.userId),
      callerRole: ADMIN.role,
      investmentId: id,
    });
  await stack.service.stop();
  const endDates = await Promise.all(
    ids.map(async (id) =>
      Date.parse((await stack.store.get<InvestmentDoc>(COLLECTIONS.investments, id))!.endDate!),
    ),
  );
  await waitFor(() => Date.now() >= Math.max(...endDates), { timeoutMs: 15_000, message: 'all due' });
  return ids;
}

/** The batch pass's context on the test stack's store, with `ledger` as its port. */
const passContext = (ledger: LedgerPort): InvestmentContext => ({
  store: stack.store,
  ledger,
  plans: [],
  clock: () => new Date(),
  newId: randomUUID,
  logger: createLogger('investment', { level: 'silent' }),
  personalData: new PersonalData(new MemoryPersonalDataKeys()),
});

it('keeps two ledger calls in flight while it records the batch answered, never more', async () => {
  expect(MATURITY_CALLS_IN_FLIGHT).toBe(2);
  const users = [0, 1, 2, 3].map(() => `user-${randomUUID()}`);
  await dueInvestments(users);
  const real = stack.realLedger() as LedgerPort;
  // the pass's records are the commits that append on the investment store from here on
  let records = 0;
  const stopCounting = stack.store.onAppended(() => records++);
  /** per call, how many batches had been recorded when it was made */
  const recordedAtCall: number[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const watching: LedgerPort = {
    ...real,
    async settleMaturities(items) {
      recordedAtCall.push(records);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        return await real.settleMaturities!(items);
      } finally {
        inFlight--;
      }
    },
  };
  expect(await settleDueInBatches(passContext(watching), { batchSize: 4 })).toBe(16);
  stopCounting();
  // the first two calls at once; the third when the first answered, before its batch was recorded; the
  // fourth when the second answered, after the first batch was recorded
  expect(recordedAtCall).toEqual([0, 0, 0, 1]);
  expect(mostInFlight).toBe(2);
  expect(records).toBe(4);
  expect([...(await maturityPostings()).values()]).toEqual(Array(16).fill(1));
});

it('reads the due index a scan at a time while the batches of the scan before are in flight', async () => {
  const users = [0, 1, 2].map(() => `user-${randomUUID()}`);
  await dueInvestments(users);
  const real = stack.realLedger() as LedgerPort;
  // scans of 5 and batches of 2 over 12 due investments: batches cut from scans of 5, 5 and 2
  const sizes: number[] = [];
  let inFlight = 0;
  /** per call, the calls in flight when it was made (a scan read while one is in flight) */
  const inFlightAtCall: number[] = [];
  const watching: LedgerPort = {
    ...real,
    async settleMaturities(items) {
      sizes.push(items.length);
      inFlightAtCall.push(inFlight++);
      try {
        return await real.settleMaturities!(items);
      } finally {
        inFlight--;
      }
    },
  };
  expect(await settleDueInBatches(passContext(watching), { batchSize: 2, scanSize: 5 })).toBe(12);
  expect(sizes).toEqual([2, 2, 1, 2, 2, 1, 2]);
  // every call after the first went out with the one before it still in flight, scans included
  expect(inFlightAtCall.slice(1).every((n) => n === 1)).toBe(true);
  // each investment settled once, none left Active
  expect([...(await maturityPostings()).values()]).toEqual(Array(12).fill(1));
  expect(await settleDueInBatches(passContext(real), { batchSize: 2, scanSize: 5 })).toBe(0);
});

it('a crash mid-batch: after the restart the rest settles, each investment exactly once', async () => {
  const users = [0, 1, 2].map(() => `user-${randomUUID()}`);
  const ids = await dueInvestments(users);

  // a pass in batches of 4 that dies in its second batch, after the ledger settled it
  const real = stack.realLedger() as LedgerPort;
  let calls = 0;
  const dying: LedgerPort = {
    ...real,
    async settleMaturities(items) {
      calls++;
      if (calls === 1) return real.settleMaturities!(items);
      if (calls === 2) await real.settleMaturities!(items);
      throw unavailable('the service died');
    },
  };
  const ctx = passContext(dying);
  await expect(settleDueInBatches(ctx, { batchSize: 4 })).rejects.toThrow('the service died');
  // the third call was in flight (refused, nothing settled) when the second's failure stopped the pass
  expect(calls).toBe(3);
  const docs = await Promise.all(
    ids.map((id) => stack.store.get<InvestmentDoc>(COLLECTIONS.investments, id)),
  );
  const sync = docs.map((d) => `${d!.status}/${d!.sync}`).sort();
  // batch 1 recorded, batch 2 settled at the ledger but its answer lost (recorded matured, owing its
  // settlement), batch 3 never matured
  expect(sync.filter((s) => s === 'Ended/none')).toHaveLength(4);
  expect(sync.filter((s) => s === 'Ended/settle')).toHaveLength(4);
  expect(sync.filter((s) => s.startsWith('Active/'))).toHaveLength(4);
  expect([...(await maturityPostings()).values()]).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);

  // the operator's gauges see it: 4 owed settlements and 4 due investments, past their end date
  const behind = await overdueMaturities(stack.store, new Date());
  expect(behind.count).toBe(8);
  expect(behind.oldestSeconds).toBeGreaterThan(0);

  // the restarted service's scheduler settles the rest
  await stack.restart();
  await waitFor(
    async () => {
      const all = await Promise.all(
        ids.map((id) => stack.store.get<InvestmentDoc>(COLLECTIONS.investments, id)),
      );
      return all.every((d) => d!.status === 'Ended' && d!.sync === 'none');
    },
    { timeoutMs: 10_000, message: 'every investment settled after the restart' },
  );
  const postings = await maturityPostings();
  expect(postings.size).toBe(12);
  expect([...postings.keys()].sort()).toEqual([...ids].sort());
  expect([...postings.values()].every((n) => n === 1)).toBe(true);
  expect(await overdueMaturities(stack.store, new Date())).toEqual({ count: 0, oldestSeconds: 0 });
  for (const u of users)
    expect(await stack.balances(u)).toMatchObject({
      depositCents: 60_000,
      investedCents: 0,
      profitCents: 44_000,
    });
});
