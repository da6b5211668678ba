/**
 * The pending deposits counter: kept by the deposit projection in the command's transaction,
 * answered by CountPendingDeposits without reading the queue (platform testing/pendingCountSpecs.ts); and the
 * cap on one user's pending deposits (platform testing/pendingCapSpecs.ts).
 */
import { randomUUID } from 'node:crypto';
import { it } from 'vitest';
import { expectPendingCounter } from '@meridian/platform/testing/pendingCountSpecs';
import { expectPendingCap } from '@meridian/platform/testing/pendingCapSpecs';
import { PENDING_DEPOSITS } from './projections/views.js';
import { ledgerPerTest } from './testing/harness.js';

const h = ledgerPerTest();

/** The investor's deposit request of `amount` dollars under an idempotency key: its id. */
const depositOf =
  (investor: Awaited<ReturnType<typeof h.user>>, amount: string) =>
  async (key: string): Promise<string> =>
    (
      await h.call('createDeposit', {
        caller: investor.caller,
        callerRole: investor.callerRole,
        amount,
        emailVerified: true,
        idempotencyKey: key,
      })
    ).depositId;

it('counts the pending deposits through request, confirm, reject, replays and a backfill', async () => {
  const investor = await h.user();
  await expectPendingCounter(
    {
      store: h.store,
      counterId: PENDING_DEPOSITS.id,
      count: async () => (await h.call('countPendingDeposits', h.asAdmin())).count,
      countAsSubscriber: () =>
        h.call('countPendingDeposits', { caller: investor.caller, callerRole: investor.callerRole }),
      listed: async () => (await h.call('listPendingDeposits', h.asAdmin())).deposits.length,
      request: depositOf(investor, '25'),
      decide: (depositId, decision) =>
        h.call(decision === 'approve' ? 'confirmDeposit' : 'rejectDeposit', { ...h.asAdmin(), depositId }),
    },
    () => `key-${randomUUID()}`,
  );
});

it('caps the pending deposits of one user (5), race-safe, with a clear message', async () => {
  const investor = await h.user();
  await expectPendingCap(
    {
      noun: 'deposits',
      request: depositOf(investor, '1000000'),
      reject: (depositId) => h.call('rejectDeposit', { ...h.asAdmin(), depositId }),
    },
    () => `key-${randomUUID()}`,
  );
});
