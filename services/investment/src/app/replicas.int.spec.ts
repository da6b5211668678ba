/**
 * The investment service's background work on two replicas: two store instances on ONE SQLite file,
 * one (in-memory) ledger. The leases let one replica run the maturity scheduler and one the process
 * manager: each investment is settled once and each lost hold re-driven once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LEASES, type LeaseRecord } from '@meridian/platform/app/lease';
import { unavailable } from '@meridian/platform/eventSourcing/errors';
import { createLogger } from '@meridian/platform/logger';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { sqliteReplicaStores } from '@meridian/platform/testing/replicaStores';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { DEFAULT_PLANS } from '../domain/plan.js';
import { COLLECTIONS } from '../projections/investmentView.js';
import { createFakeLedger } from '../testing/fakeLedger.js';
import type { InvestmentContext } from './context.js';
import { decideInvestment, startInvest } from './investments.js';
import { MATURITY_SCHEDULER_LEASE, startMaturityScheduler } from './maturityScheduler.js';
import { PROCESS_MANAGER_LEASE, startProcessManager } from './processManager.js';

const dir = tempDir('meridian-investment-replicas-');
afterAll(() => dir.remove());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DAY = 24 * 60 * 60 * 1000;
const ADMIN = { userId: 'admin', role: 'admin' };
const lease = (owner: string) => ({ ttlMs: 2_000, pollMs: 20, owner });

function twoReplicas() {
  // the stores stamp events with the real clock (syncSince): the replicas' clock runs with it, plus an offset
  let offsetMs = 0;
  const stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`));
  cleanups.push(() => Promise.all(stores.map((s) => s.close())));
  const ledger = createFakeLedger();
  const ctxs: InvestmentContext[] = stores.map((store) => ({
    store,
    ledger: ledger.port,
    plans: DEFAULT_PLANS,
    clock: () => new Date(Date.now() + offsetMs),
    newId: randomUUID,
    logger: createLogger('investment-test', { level: 'silent' }),
    personalData: new PersonalData(new MemoryPersonalDataKeys()),
  }));
  return { stores, ledger, ctxs, advance: (ms: number) => (offsetMs += ms) };
}

async function approvedInvestments(
  ctx: InvestmentContext,
  ledger: ReturnType<typeof createFakeLedger>,
  count: number,
) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const userId = `u-${randomUUID()}`;
    ledger.account(userId).deposit = 10_000;
    const { investment } = await startInvest(ctx, {
      actor: { userId, role: 'subscriber' },
      isVerified: true,
      planName: 'Starter',
      amount: '100',
    });
    await decideInvestment(ctx, { actor: ADMIN, investmentId: investment.investmentId, decision: 'approve' });
    ids.push(investment.investmentId);
  }
  return ids;
}

const countCalls = (calls: string[], prefix: string) => {
  const counts = new Map<string, number>();
  for (const c of calls)
    if (c.startsWith(prefix))
      counts.set(c.slice(prefix.length), (counts.get(c.slice(prefix.length)) ?? 0) + 1);
  return counts;
};

/** Every id called exactly once. */
const once = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, 1]));

async function holderOf(store: ServiceStore, name: string): Promise<number> {
  const owner = (await store.get<LeaseRecord>(LEASES, name))?.owner;
  expect(owner === 'replica-0' || owner === 'replica-1').toBe(true);
  return owner === 'replica-1' ? 1 : 0;
}

describe('investment background work on two replicas sharing one store', () => {
  it('the maturity schedulers settle each due investment once; the standby takes over a stopped holder', async () => {
    const { stores, ledger, ctxs, advance } = twoReplicas();
    const first = [
      ...(await approvedInvestments(ctxs[0], ledger, 6)),
      ...(await approvedInvestments(ctxs[1], ledger, 6)),
    ];
    advance(DAY); // Starter lasts one day: all due
    const schedulers = ctxs.map((ctx, i) => startMaturityScheduler(ctx, { lease: lease(`replica-${i}`) }));
    cleanups.push(() => Promise.all(schedulers.map((s) => s.stop())));
    // an investment is Ended (owing its settlement) a moment before the ledger is asked: settled is Ended and
    // owing nothing
    const settledCount = async () =>
      (await stores[0].count(COLLECTIONS.investments, { status: 'Ended' })) -
      (await stores[0].count(COLLECTIONS.investments, { sync: 'settle' }));
    await waitFor(async () => (await settledCount()) === 12, 'all 12 matured and settled');
    const settled = countCalls(ledger.calls, 'settleMaturity:');
    expect(Object.fromEntries(settled)).toEqual(once(first));

    const holder = await holderOf(stores[0], MATURITY_SCHEDULER_LEASE);
    await schedulers[holder].stop();
    const second = await approvedInvestments(ctxs[holder], ledger, 3);
    advance(DAY);
    schedulers[1 - holder].poke(); // its own timer would fire later, the lease change woke it already
    await waitFor(async () => (await settledCount()) === 15, 'the next 3 settled by the other replica');
    const again = countCalls(ledger.calls, 'settleMaturity:');
    expect(Object.fromEntries(again)).toEqual(once([...first, ...second]));
  });

  it('the process managers re-drive each lost hold once', async () => {
    const { stores, ledger, ctxs } = twoReplicas();
    // the ledger goes silent for the requests: each one is left owing its hold
    const port = { ...ledger.port, placeHold: async () => Promise.reject(unavailable('ledger down')) };
    const lost: string[] = [];
    for (let i = 0; i < 10; i++) {
      const userId = `u-${randomUUID()}`;
      ledger.account(userId).deposit = 10_000;
      const investmentId = `inv-${randomUUID()}`;
      const ctx = { ...ctxs[i % 2], ledger: port };
      await startInvest(ctx, {
        actor: { userId, role: 'subscriber' },
        isVerified: true,
        planName: 'Starter',
        amount: '100',
        investmentId,
      }).catch(() => undefined);
      lost.push(investmentId);
    }
    expect(await stores[0].count(COLLECTIONS.investments, { sync: 'hold' })).toBe(10);
    expect(ledger.calls).toEqual([]);

    const managers = ctxs.map((ctx, i) =>
      startProcessManager(ctx, { intervalMs: 60_000, lease: lease(`replica-${i}`) }),
    );
    cleanups.push(() => Promise.all(managers.map((m) => m.stop())));
    await waitFor(
      async () => (await stores[1].count(COLLECTIONS.investments, { sync: 'hold' })) === 0,
      'all holds re-driven',
    );
    const placed = countCalls(ledger.calls, 'placeHold:');
    expect(Object.fromEntries(placed)).toEqual(once(lost));
    // the standby's sweep does nothing
    const holder = await holderOf(stores[0], PROCESS_MANAGER_LEASE);
    expect(await managers[1 - holder].sweep(0)).toBe(0);
  });
});
