/**
 * CloseAccount of a held-request service (investment, withdrawal; platform app/accountClosure.ts): in one
 * transaction, the user's pending requests counted and, with cancelPending, each rejected by the deleting
 * admin (the request's stream decides: a decision racing the closure on the same request is refused by
 * the stream's version, so exactly one of them is recorded), then the account marked closed. The released
 * holds are told to the ledger after the commit (or by the process manager, as for any rejection).
 */
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
import {
  type CloseAccountAnswer,
  type CloseAccountInput,
  markAccountClosed,
  reopenAccount,
  requireClosingAdmin,
} from '@meridian/platform/app/accountClosure';
import { inTransaction, metaOf } from '@meridian/platform/app/requestContext';
import type { AdminDecision } from '../domain/lifecycle.js';
import type { HeldRequestContext, HeldRequests, OwingDoc } from './heldRequests.js';
import type { RequestQueries } from '../projections/requestView.js';

export interface ClosableKind<Ctx extends HeldRequestContext, D extends OwingDoc, Reject extends string> {
  view: Pick<RequestQueries<D>, 'idOf' | 'ofUser'>;
  /** The status of a request not decided yet. */
  pendingStatus: string;
  reject: Reject;
  execute(ctx: Ctx, requestId: string, command: AdminDecision<Reject>, meta: EventMeta): Promise<unknown>;
  requests: Pick<HeldRequests<Ctx, D>, 'syncLedger'>;
}

export async function closeHeldRequestAccount<
  Ctx extends HeldRequestContext,
  D extends OwingDoc,
  Reject extends string,
>(ctx: Ctx, kind: ClosableKind<Ctx, D, Reject>, input: CloseAccountInput): Promise<CloseAccountAnswer> {
  const actor = requireClosingAdmin(input);
  if (input.reopen) {
    await inTransaction(ctx, (tx) => reopenAccount(tx, input.userId));
    return { closed: false, pending: 0, balanceCents: 0 };
  }
  const idOf = (doc: D) => kind.view.idOf(doc);
  const answer = await inTransaction(ctx, async (tx) => {
    const { items } = await kind.view.ofUser(tx, input.userId);
    const pending = items.filter((d) => d.status === kind.pendingStatus);
    if (pending.length > 0 && !input.cancelPending)
      return { closed: false, pending: pending.length, balanceCents: 0, cancelled: [] as string[] };
    const now = ctx.clock();
    for (const doc of pending)
      await kind.execute(
        ctx,
        idOf(doc),
        { type: kind.reject, adminId: actor.userId, actorRole: actor.role, now },
        metaOf(ctx, actor),
      );
    await markAccountClosed(tx, input.userId, now, actor.userId);
    return { closed: true, pending: pending.length, balanceCents: 0, cancelled: pending.map(idOf) };
  });
  // the released holds, told to the ledger now (what is not confirmed stays owed for the process manager)
  for (const id of answer.cancelled) await kind.requests.syncLedger(ctx, id);
  return { closed: answer.closed, pending: answer.pending, balanceCents: 0 };
}
