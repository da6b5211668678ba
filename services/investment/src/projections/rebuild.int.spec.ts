/**
 * Every read model of the investment service can be dropped and rebuilt from events alone, the process
 * manager's to-do list (`sync`) included: a realistic run (requests, a refusal, a request left without
 * its hold, approvals, a rejection, a capture lost then re-driven, a maturity) through the gRPC surface
 * against the real ledger, then every collection is snapshotted, dropped and rebuilt — the investments
 * from the service's own log (store.readAll from 0 through projectInvestment), the users directory by
 * replaying identity's topic (kept forever) from the beginning through the handler the live consumer
 * uses — and compared.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import { unavailable } from '@meridian/platform/eventSourcing/errors';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { dropCollections, replayTopic, snapshotCollections } from '@meridian/platform/testing/readModels';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { handleIdentityEvent } from '../app/identityEvents.js';
import type { LedgerPort } from '../app/ports.js';
import { ADMIN, caller, grpcError, startStack } from '../testing/harness.js';
import { COLLECTIONS, type InvestmentDoc, investmentById, rebuildInvestments } from './investmentView.js';

const PLANS = JSON.stringify([
  { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: 3_600_000 },
]);
/** The id field of each read-model collection (what a drop deletes by). */
const ID_OF: Record<(typeof COLLECTIONS)[keyof typeof COLLECTIONS], string> = {
  investments: 'investmentId',
  users: 'userId',
};

const identityEvent = (type: string, userId: string, data: Record<string, unknown>): StoredEvent => ({
  id: randomUUID(),
  type,
  data: { userId, ...data },
  streamId: `user-${userId}`,
  version: 2,
  position: 2,
  occurredAt: new Date().toISOString(),
  correlationId: randomUUID(),
  causationId: null,
  actor: null,
});

it('drops every read model and rebuilds it equal from the events alone', async () => {
  const stack = await startStack({ plansJson: PLANS });
  try {
    const [u1, u2, u3] = [1, 2, 3].map((n) => `user-${n}-${randomUUID()}`);
    await stack.registerUser(u1, 'Ada', 'ada@example.com');
    await stack.registerUser(u2, 'Bob', 'bob@example.com');
    await stack.registerUser(u3, 'Cy', 'cy@example.com');
    await stack.bus.publish(topicOf('identity'), [
      identityEvent('ProfileUpdated', u1, { name: 'Ada L.', fields: ['name'] }),
    ]);
    const identityEvents = 4;
    await stack.fund(u1, '2000');
    await stack.fund(u2, '500');
    await stack.fund(u3, '100');

    let offsetMs = 0;
    const clock = () => new Date(Date.now() + offsetMs);
    const real = stack.realLedger();
    await stack.restart({ ledger: real, clock });
    const invest = (userId: string, amount: string, investmentId = '') =>
      stack.call('startInvest', {
        caller: caller(userId),
        callerRole: 'subscriber',
        callerVerified: true,
        planName: 'Starter',
        amount,
        investmentId,
      });
    const decide = (method: 'approveInvestment' | 'rejectInvestment', investmentId: string) =>
      stack.call(method, { caller: caller(ADMIN.userId), callerRole: ADMIN.role, investmentId });
    const doc = async (id: string) => (await investmentById(stack.store, id)) as InvestmentDoc;

    // approved, then matured and settled two hours later
    const matured = (await invest(u1, '100')).investment!.investmentId;
    await decide('approveInvestment', matured);
    offsetMs = 2 * 3_600_000;
    await stack.call('settleDueForUser', { caller: caller(u1), callerRole: 'subscriber' });
    await waitFor(async () => (await doc(matured)).sync === 'none', 'settled');
    expect(await doc(matured)).toMatchObject({ status: 'Ended', funds: 'settled' });

    // approved while the ledger's capture is lost, then re-driven by the process manager
    const active = (await invest(u1, '200')).investment!.investmentId;
    await stack.restart({
      ledger: { ...real, captureHold: async () => Promise.reject(unavailable('ledger down')) },
      clock,
    });
    await decide('approveInvestment', active);
    expect(await doc(active)).toMatchObject({ status: 'Active', sync: 'capture' });
    await stack.restart({ ledger: real, clock });
    await waitFor(async () => (await doc(active)).sync === 'none', 'capture re-driven');
    expect(await doc(active)).toMatchObject({ status: 'Active', funds: 'captured' });

    // rejected (released), waiting in the queue, refused by the ledger (a stale balance)
    const rejected = (await invest(u2, '300')).investment!.investmentId;
    await decide('rejectInvestment', rejected);
    const queued = (await invest(u2, '150')).investment!.investmentId;
    const stale: LedgerPort = {
      ...real,
      getBalances: async (userId) => ({ ...(await real.getBalances(userId)), depositCents: 1_000_000 }),
    };
    await stack.restart({ ledger: stale, clock });
    const refusedId = `inv-${randomUUID()}`;
    expect((await grpcError(invest(u3, '400', refusedId))).code).toBe(status.FAILED_PRECONDITION);

    // left without its hold's outcome: owed to the process manager
    const lost: LedgerPort = { ...real, placeHold: async () => Promise.reject(unavailable('ledger down')) };
    await stack.restart({ ledger: lost, clock });
    const awaitingId = `inv-${randomUUID()}`;
    expect((await grpcError(invest(u1, '250', awaitingId))).code).toBe(status.UNAVAILABLE);

    await waitFor(
      async () =>
        (await stack.store.find<{ name: string }>(COLLECTIONS.users)).some((u) => u.name === 'Ada L.'),
      'directory up to date',
    );
    await stack.service.stop();
    const before = await snapshotCollections(stack.store, ID_OF);

    // the run covers every state the rebuild must restore, the process manager's included
    const byId = new Map((before.investments as InvestmentDoc[]).map((d) => [d.investmentId, d]));
    expect(byId.get(matured)).toMatchObject({ status: 'Ended', sync: 'none' });
    expect(byId.get(active)).toMatchObject({ status: 'Active', sync: 'none' });
    expect(byId.get(rejected)).toMatchObject({ status: 'Rejected', sync: 'none', funds: 'released' });
    expect(byId.get(queued)).toMatchObject({ status: 'pending', hold: 'placed', sync: 'none' });
    expect(byId.get(refusedId)).toMatchObject({ status: 'Rejected', hold: 'refused', listed: false });
    expect(byId.get(awaitingId)).toMatchObject({ status: 'pending', hold: 'awaiting', sync: 'hold' });
    expect(before.users).toHaveLength(3);

    await dropCollections(stack.store, ID_OF);
    for (const c of Object.values(COLLECTIONS)) expect(await stack.store.count(c)).toBe(0);

    // investments: the service's own log alone
    expect(await rebuildInvestments(stack.store)).toBe(6);
    // users: identity's topic replayed from the beginning (a fresh group) through the live handler
    await replayTopic(stack.bus, stack.store, topicOf('identity'), identityEvents, handleIdentityEvent);

    expect(await snapshotCollections(stack.store, ID_OF)).toEqual(before);
  } finally {
    await stack.stop();
  }
});
