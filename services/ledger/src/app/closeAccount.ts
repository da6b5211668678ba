/**
 * CloseAccount at the ledger (platform app/accountClosure.ts), in one transaction: the user's pending
 * deposits and balances read; without cancelPending, an account with a pending deposit or a balance that is
 * not zero stays open and the answer says what is there; with it, each pending deposit is rejected by the
 * deleting admin (its stream decides: a confirmation racing the closure is refused by the stream's version)
 * and the account closed. The balances stay where they are, recorded: a closed account takes no new deposit
 * and no balance edit (isLiveUser).
 */
import {
  type CloseAccountAnswer,
  type CloseAccountInput,
  markAccountClosed,
  reopenAccount,
  requireClosingAdmin,
} from '@meridian/platform/app/accountClosure';
import { balancesOf, depositsOfUser } from '../projections/views.js';
import { type LedgerContext, inTransaction, metaOf } from './context.js';
import { executeDeposit } from './streams.js';

export const CANCELLED_FOR_DELETION = 'Cancelled: the user was deleted';

export async function closeAccount(
  ctx: LedgerContext,
  input: CloseAccountInput,
): Promise<CloseAccountAnswer> {
  const actor = requireClosingAdmin(input);
  const { userId } = input;
  return inTransaction(ctx, async (tx) => {
    if (input.reopen) {
      await reopenAccount(tx, userId);
      return { closed: false, pending: 0, balanceCents: 0 };
    }
    const pending = (await depositsOfUser(tx, userId)).items.filter((d) => d.status === 'Pending');
    const b = await balancesOf(tx, userId);
    const balanceCents =
      b.depositCents + b.investedCents + b.profitCents + b.withdrawalHoldCents + b.investmentHoldCents;
    if ((pending.length > 0 || balanceCents !== 0) && !input.cancelPending)
      return { closed: false, pending: pending.length, balanceCents };
    const now = ctx.clock();
    for (const deposit of pending)
      await executeDeposit(
        tx,
        deposit.depositId,
        {
          type: 'RejectDeposit',
          adminId: actor.userId,
          actorRole: actor.role,
          notes: CANCELLED_FOR_DELETION,
          now,
        },
        metaOf(ctx, actor),
      );
    await markAccountClosed(tx, userId, now, actor.userId);
    return { closed: true, pending: pending.length, balanceCents };
  });
}
