/**
 * The pending KYC cases counter: kept by the case projection in the command's transaction,
 * answered by CountPending without reading the queue (platform testing/pendingCountSpecs.ts). A second
 * upload while the case is pending replaces its documents: the same case, counted once.
 */
import { randomUUID } from 'node:crypto';
import { it } from 'vitest';
import { expectPendingCounter } from '@meridian/platform/testing/pendingCountSpecs';
import { PENDING_CASES } from './app/kycCases.js';
import { kycHarnessPerTest } from './testing/harness.js';

const h = kycHarnessPerTest();

it('counts the pending cases through submit, approve, reject, replays and a backfill', async () => {
  await expectPendingCounter(
    {
      store: h.store,
      counterId: PENDING_CASES.id,
      count: async () => (await h.call('countPending', h.asAdmin())).count,
      countAsSubscriber: () => h.call('countPending', { ...h.asAdmin(), callerRole: 'subscriber' }),
      listed: async () => (await h.call('listPending', h.asAdmin())).pendingUsers.length,
      request: (userId) => h.submitCase(userId),
      decide: (userId, decision) =>
        decision === 'approve'
          ? h.call('approve', { ...h.asAdmin(), userId })
          : h.call('reject', { ...h.asAdmin(), userId, reason: 'The photo is blurred' }),
    },
    () => `user-${randomUUID()}`,
  );
});
