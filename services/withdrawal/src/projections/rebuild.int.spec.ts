/**
 * Every read model of the withdrawal service can be dropped and rebuilt from events alone, the process
 * manager's to-do list (`sync`) included: a realistic run (requests, a refusal, a request left without
 * its hold, approvals, a rejection, a capture lost then re-driven) through the gRPC surface against the
 * real ledger, then every collection is snapshotted, dropped and rebuilt — the withdrawals from the
 * service's own log (store.readAll from 0 through projectWithdrawal), the users directory by
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
import { COLLECTIONS, type WithdrawalDoc, rebuildWithdrawals, withdrawalById } from './withdrawalView.js';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
/** The id field of each read-model collection (what a drop deletes by). */
const ID_OF: Record<(typeof COLLECTIONS)[keyof typeof COLLECTIONS], string> = {
  withdrawals: 'withdrawalId',
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
  const stack = await startStack();
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

    const real = stack.realLedger();
    await stack.restart({ ledger: real });
    const request = (userId: string, amount: string, withdrawalId = '') =>
      stack.call('requestWithdrawal', {
        caller: caller(userId),
        callerRole: 'subscriber',
        callerVerified: true,
        callerKycStatus: 'Approved',
        amount,
        walletAddress: WALLET,
        withdrawalId,
      });
    const decide = (method: 'approveWithdrawal' | 'rejectWithdrawal', withdrawalId: string) =>
      stack.call(method, { caller: caller(ADMIN.userId), callerRole: ADMIN.role, withdrawalId });
    const doc = async (id: string) => (await withdrawalById(stack.store, id)) as WithdrawalDoc;

    // approved: paid out
    const paid = (await request(u1, '100')).withdrawal!.withdrawalId;
    await decide('approveWithdrawal', paid);
    expect(await doc(paid)).toMatchObject({ status: 'Approved', sync: 'none', funds: 'captured' });

    // approved while the ledger's capture is lost, then re-driven by the process manager
    const redriven = (await request(u1, '200')).withdrawal!.withdrawalId;
    await stack.restart({
      ledger: { ...real, captureHold: async () => Promise.reject(unavailable('ledger down')) },
    });
    await decide('approveWithdrawal', redriven);
    expect(await doc(redriven)).toMatchObject({ status: 'Approved', sync: 'capture' });
    await stack.restart({ ledger: real });
    await waitFor(async () => (await doc(redriven)).sync === 'none', 'capture re-driven');
    expect(await doc(redriven)).toMatchObject({ status: 'Approved', funds: 'captured' });

    // rejected (released), waiting in the queue, refused by the ledger (a stale balance)
    const rejected = (await request(u2, '300')).withdrawal!.withdrawalId;
    await decide('rejectWithdrawal', rejected);
    const queued = (await request(u2, '150')).withdrawal!.withdrawalId;
    const stale: LedgerPort = {
      ...real,
      getBalances: async (userId) => ({ ...(await real.getBalances(userId)), profitCents: 1_000_000 }),
    };
    await stack.restart({ ledger: stale });
    const refusedId = `wd-${randomUUID()}`;
    expect((await grpcError(request(u3, '400', refusedId))).code).toBe(status.FAILED_PRECONDITION);

    // left without its hold's outcome: owed to the process manager
    const lost: LedgerPort = { ...real, placeHold: async () => Promise.reject(unavailable('ledger down')) };
    await stack.restart({ ledger: lost });
    const awaitingId = `wd-${randomUUID()}`;
    expect((await grpcError(request(u1, '250', awaitingId))).code).toBe(status.UNAVAILABLE);

    await waitFor(
      async () =>
        (await stack.store.find<{ name: string }>(COLLECTIONS.users)).some((u) => u.name === 'Ada L.'),
      'directory up to date',
    );
    await stack.service.stop();
    const before = await snapshotCollections(stack.store, ID_OF);

    // the run covers every state the rebuild must restore, the process manager's included
    const byId = new Map((before.withdrawals as WithdrawalDoc[]).map((d) => [d.withdrawalId, d]));
    expect(byId.get(paid)).toMatchObject({ status: 'Approved', sync: 'none' });
    expect(byId.get(redriven)).toMatchObject({ status: 'Approved', sync: 'none' });
    expect(byId.get(rejected)).toMatchObject({ status: 'Rejected', sync: 'none', funds: 'released' });
    expect(byId.get(queued)).toMatchObject({ status: 'Pending', hold: 'placed', sync: 'none' });
    expect(byId.get(refusedId)).toMatchObject({ status: 'Rejected', hold: 'refused', listed: false });
    expect(byId.get(awaitingId)).toMatchObject({ status: 'Pending', hold: 'awaiting', sync: 'hold' });
    expect(before.users).toHaveLength(3);

    await dropCollections(stack.store, ID_OF);
    for (const c of Object.values(COLLECTIONS)) expect(await stack.store.count(c)).toBe(0);

    // withdrawals: the service's own log alone
    expect(await rebuildWithdrawals(stack.store)).toBe(6);
    // users: identity's topic replayed from the beginning (a fresh group) through the live handler
    await replayTopic(stack.bus, stack.store, topicOf('identity'), identityEvents, handleIdentityEvent);

    expect(await snapshotCollections(stack.store, ID_OF)).toEqual(before);
  } finally {
    await stack.stop();
  }
});
