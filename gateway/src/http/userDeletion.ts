/**
 * DELETE api/users/{id}: a user's money is settled before identity deletes them.
 *
 * The gateway closes the user's account in every money service first (CloseAccount, platform
 * app/accountClosure.ts): each, in one transaction of its own store, counts the user's pending requests (the
 * ledger: pending deposits and the balances too) and either leaves the account open (something is there) or
 * closes it — with `cancelPending`, after rejecting each pending request as the deleting admin (events; the
 * holds released). A closed account takes no new request and, nothing pending being left, no decision; a
 * decision racing the closure on one request is settled by that request's stream (exactly one is recorded).
 * When any service left the account open, or identity refuses the deletion, the accounts closed here are
 * reopened and nothing was deleted; the refusal says what must be settled first.
 */
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import { CloseAccountRequest, type CloseAccountResponse } from '@meridian/proto/meridian/common/v1/common';
import { formatCents } from '@meridian/platform/money/money';
import { callUnary } from '../grpcClients.js';
import type { MoneyClients } from '../moneyClients.js';
import type { GrpcContext } from './grpcContext.js';
import { HttpError } from './errors.js';

export const CANCEL_PENDING_INVALID = 'cancelPending must be true or false';

/** `?cancelPending=true|false` (absent: false, the refusing default). */
export function parseCancelPending(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new HttpError(400, CANCEL_PENDING_INVALID);
}

const plural = (n: number, noun: string) => `${n} pending ${noun}${n === 1 ? '' : 's'}`;

function listed(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** 'This user has 1 pending deposit and a balance of $120.00: settle them first, or delete with cancelPending=true' */
export function unsettledMessage(counts: {
  deposits: number;
  investments: number;
  withdrawals: number;
  balanceCents: number;
}): string {
  const parts = [
    ...(counts.deposits ? [plural(counts.deposits, 'deposit')] : []),
    ...(counts.investments ? [plural(counts.investments, 'investment')] : []),
    ...(counts.withdrawals ? [plural(counts.withdrawals, 'withdrawal')] : []),
    ...(counts.balanceCents ? [`a balance of ${formatCents(counts.balanceCents)}`] : []),
  ];
  return `This user has ${listed(parts)}: settle them first, or delete with cancelPending=true`;
}

type Service = 'investment' | 'withdrawal' | 'ledger';
/** The held-request services first, the ledger last (its balances then include what they released). */
const ORDER: Service[] = ['investment', 'withdrawal', 'ledger'];

/**
 * Closes the user's accounts, runs `remove` (identity's deletion) once all are closed, reopens them when it
 * does not go ahead. Throws 400 with unsettledMessage when something is pending or a balance is not zero
 * (and `cancelPending` is not set).
 */
export async function deleteWithMoneySettled(
  money: MoneyClients,
  input: { caller: Caller | undefined; callerRole: string; userId: string; cancelPending: boolean },
  ctx: GrpcContext,
  remove: () => Promise<string>,
): Promise<string> {
  const request = (reopen: boolean) =>
    CloseAccountRequest.fromPartial({
      caller: input.caller,
      callerRole: input.callerRole,
      userId: input.userId,
      cancelPending: input.cancelPending,
      reopen,
    });
  const close = (service: Service, reopen: boolean): Promise<CloseAccountResponse> =>
    service === 'ledger'
      ? callUnary(money.ledger, 'closeAccount', request(reopen), ctx)
      : service === 'investment'
        ? callUnary(money.investment, 'closeAccount', request(reopen), ctx)
        : callUnary(money.withdrawal, 'closeAccount', request(reopen), ctx);
  const closed: Service[] = [];
  const reopenClosed = async () => {
    // best effort: a reopen that fails leaves the account closed (no money moves for the user) until retried
    await Promise.allSettled(closed.map((s) => close(s, true)));
  };
  const answers = {} as Record<Service, CloseAccountResponse>;
  try {
    for (const service of ORDER) {
      answers[service] = await close(service, false);
      if (answers[service].closed) closed.push(service);
    }
  } catch (err) {
    await reopenClosed();
    throw err;
  }
  if (closed.length < ORDER.length) {
    await reopenClosed();
    throw new HttpError(
      400,
      unsettledMessage({
        deposits: answers.ledger?.pending ?? 0,
        investments: answers.investment.pending,
        withdrawals: answers.withdrawal.pending,
        balanceCents: answers.ledger?.balanceCents ?? 0,
      }),
    );
  }
  try {
    return await remove();
  } catch (err) {
    await reopenClosed();
    throw err;
  }
}
