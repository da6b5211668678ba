/**
 * Use cases of the withdrawal service: the held-money request (@meridian/held-request
 * heldRequests.ts) of a withdrawal — Total Profit held with the withdrawal id as
 * idempotency key, captured on approval (paid out to the outside world) or released back to Total
 * Profit on rejection. Money requests answer synchronously (docs/architecture.md §4); whatever the ledger did not
 * confirm stays owed — the read model's `sync`, projected from the events — and the process manager
 * completes it.
 */
import { heldRequests } from '@meridian/held-request/app/heldRequests';
import type { CloseAccountInput } from '@meridian/platform/app/accountClosure';
import type { WithUser } from '@meridian/held-request/app/userDirectory';
import {
  type WithdrawalCommand,
  WITHDRAWAL_DECISIONS,
  WITHDRAWAL_MESSAGES,
  parseWithdrawalAmount,
  validateRequest,
} from '../domain/withdrawal.js';
import { type WithdrawalDoc, withdrawalView } from '../projections/withdrawalView.js';
import { type Actor, type WithdrawalContext, checkId, executeWithdrawal, requireActor } from './context.js';

export type WithdrawalView = WithUser<WithdrawalDoc>;

/**
 * The held-money request of a withdrawal: Total Profit held, captured (paid out) or released on
 * decision; its reads and decisions (the gRPC adapter serves them through heldRequestHandlers).
 */
export const withdrawals = heldRequests({
  purpose: 'withdrawal',
  messages: WITHDRAWAL_MESSAGES,
  owedCalls: ['hold', 'capture', 'release'],
  decisions: WITHDRAWAL_DECISIONS,
  view: withdrawalView,
  availableCents: async (ctx: WithdrawalContext, userId) =>
    (await ctx.ledger.getBalances(userId)).profitCents,
  execute: (ctx, id, command: WithdrawalCommand, meta) => executeWithdrawal(ctx, id, () => command, meta),
});

// ---------- request ----------

export async function requestWithdrawal(
  ctx: WithdrawalContext,
  input: {
    actor: Actor;
    isVerified: boolean;
    kycStatus: string;
    amount: unknown;
    walletAddress: string;
    withdrawalId?: string;
  },
): Promise<{ message: string; withdrawal: WithdrawalView }> {
  const actor = requireActor(input.actor);
  const withdrawalId = input.withdrawalId ? checkId(input.withdrawalId) : ctx.newId();
  const request = {
    withdrawalId,
    userId: actor.userId,
    isVerified: input.isVerified,
    kycStatus: input.kycStatus ?? '',
    amountCents: parseWithdrawalAmount(input.amount),
    walletAddress: input.walletAddress ?? '',
    now: ctx.clock(),
  };
  // sealed before the request is recorded: the recording transaction (with the cap on pending requests)
  // waits on nothing outside the store
  const sealed = await sealWalletAddress(ctx, actor.userId, request.walletAddress);
  const { message, view } = await withdrawals.submit(ctx, {
    actor,
    requestId: withdrawalId,
    validate: () => validateRequest(request),
    command: (availableProfitCents) => ({
      type: 'RequestWithdrawal',
      ...request,
      ...sealed,
      availableProfitCents,
    }),
  });
  return { message, withdrawal: view };
}

/** Admin, before the user's deletion: the user's withdrawals closed (held-request closeAccount.ts). */
export const closeAccount = (ctx: WithdrawalContext, input: CloseAccountInput) =>
  withdrawals.closeAccount(ctx, input);

/**
 * The wallet address as the events keep it: sealed with the owner's personal-data key (crypto-shredding:
 * once the user is deleted no copy of it can be read), with a keyed hash of it (PersonalData.digest) next to
 * it. Sealing is randomised, so a retry (or the same request sent twice at once, to two replicas) seals
 * differently: the decider compares the hashes, inside the command's transaction, and the second request
 * decides nothing. A deleted user's address is never sealed (their key is gone for good): refused.
 */
async function sealWalletAddress(
  ctx: WithdrawalContext,
  userId: string,
  walletAddress: string,
): Promise<{ sealedWalletAddress?: string; walletAddressHash?: string }> {
  const plain = (walletAddress ?? '').trim();
  if (!plain) return {};
  const [sealedWalletAddress, walletAddressHash] = await Promise.all([
    ctx.personalData.seal(userId, plain),
    ctx.personalData.digest(userId, plain),
  ]);
  return { sealedWalletAddress, walletAddressHash };
}
