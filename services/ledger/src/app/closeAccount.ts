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
  closeAccountWith,
} from '@meridian/platform/app/accountClosure';
import { balancesOf, depositsOfUser } from '../projections/views.js';
import { type LedgerContext, metaOf } from './context.js';
import { executeDeposit } from './streams.js';

export const CANCELLED_FOR_DELETION = 'Cancelled: the user was deleted';

export async function closeAccount(
  ctx: LedgerContext,
  input: CloseAccountInput,
): Promise<CloseAccountAnswer> {
  const { closed, pending, balanceCents } = await closeAccountWith(ctx, input, {
    holdings: async (tx) => {
      const b = await balancesOf(tx, input.userId);
      return {
        pending: (await depositsOfUser(tx, input.userId)).items.filter((d) => d.status === 'Pending'),
        balanceCents:
          b.depositCents + b.investedCents + b.profitCents + b.withdrawalHoldCents + b.investmentHoldCents,
      };
    },
    cancel: (tx, deposit, { actor, now }) =>
      executeDeposit(
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
      ),
  });
  return { closed, pending, balanceCents };
}
