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
  closeAccountWith,
} from '@meridian/platform/app/accountClosure';
import { type TransactionContext, metaOf } from '@meridian/platform/app/requestContext';
import type { AdminDecision } from '../domain/lifecycle.js';
import type { RequestQueries } from '../projections/requestView.js';

/** The context the closure runs in. */
type ClosingContext = TransactionContext & { clock: () => Date; newId: () => string };

/** What the closure needs of a kind (heldRequests' closeAccount gives it). */
export interface ClosableKind<
  Ctx extends ClosingContext,
  D extends { status: string; sync: string },
  Reject extends string,
> {
  view: Pick<RequestQueries<D>, 'idOf' | 'ofUser' | 'pendingStatus'>;
  reject: Reject;
  execute(ctx: Ctx, requestId: string, command: AdminDecision<Reject>, meta: EventMeta): Promise<unknown>;
  syncLedger(ctx: Ctx, requestId: string): Promise<unknown>;
}

export async function closeHeldRequestAccount<
  Ctx extends ClosingContext,
  D extends { status: string; sync: string },
  Reject extends string,
>(ctx: Ctx, kind: ClosableKind<Ctx, D, Reject>, input: CloseAccountInput): Promise<CloseAccountAnswer> {
  const { closed, pending, cancelled } = await closeAccountWith(ctx, input, {
    holdings: async (tx) => ({
      pending: (await kind.view.ofUser(tx, input.userId)).items.filter(
        (d) => d.status === kind.view.pendingStatus,
      ),
      balanceCents: 0,
    }),
    cancel: (_tx, doc, { actor, now }) =>
      kind.execute(
        ctx,
        kind.view.idOf(doc),
        { type: kind.reject, adminId: actor.userId, actorRole: actor.role, now },
        metaOf(ctx, actor),
      ),
  });
  // the released holds, told to the ledger now (what is not confirmed stays owed for the process manager)
  for (const doc of cancelled) await kind.syncLedger(ctx, kind.view.idOf(doc));
  return { closed, pending, balanceCents: 0 };
}
