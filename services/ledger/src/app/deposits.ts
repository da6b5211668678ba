/**
 * Deposit use cases. Confirming is ONE transaction over up to three streams: DepositConfirmed on
 * deposit-<id>, CreditDeposit on the investor's ledger and, on their first confirmed deposit with a
 * linked referrer, PayReferralBonus on the referrer's ledger. Nothing is left half done by a crash,
 * and every step is idempotent on its own key (deposit:<id>, referral:<refereeId>). Maker-checker: no
 * admin decides their own deposit, and none is made or decided while an admin impersonates a user.
 */
import {
  MAKER_CHECKER_MESSAGES,
  refuseOwnDecision,
  refuseWhileImpersonating,
} from '@meridian/platform/domain/makerChecker';
import { refuseClosedAccount } from '@meridian/platform/app/accountClosure';
import { pageRequest, type Page } from '@meridian/platform/ports/pages';
import { capPendingOfUser, DEFAULT_MAX_PENDING_PER_USER } from '@meridian/platform/ports/pendingCount';
import { notFound } from '@meridian/platform/eventSourcing/errors';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import type { ReferralBonusEarned } from '../domain/account.js';
import { DEPOSIT_MESSAGES, parseDepositAmount, type SentTo } from '../domain/deposit.js';
import {
  COLLECTIONS,
  type DepositDoc,
  type UserDoc,
  depositById,
  depositsOfUser,
  pendingDepositCount,
  pendingDeposits,
  userById,
} from '../projections/views.js';
import {
  type Actor,
  type LedgerContext,
  checkKey,
  inTransaction,
  metaOf,
  personalDataIn,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from './context.js';
import { handleCommand } from '@meridian/platform/app/commandHandler';
import { LEDGER_STREAM, executeDeposit } from './streams.js';

export type DepositView = DepositDoc & { userName: string; userEmail: string };

/**
 * Deposits as they are answered, with their owner's name and email from the directory, opened (identity
 * sealed them with the user's key; '[deleted]' once the user is deleted and the key destroyed).
 */
async function withUsers(ctx: LedgerContext, reads: StoreReads, docs: DepositDoc[]): Promise<DepositView[]> {
  const personalData = personalDataIn(ctx);
  const cache = new Map<string, { name: string; email: string } | null>();
  const out: DepositView[] = [];
  for (const doc of docs) {
    if (!cache.has(doc.userId)) {
      const user: UserDoc | null = await userById(reads, doc.userId);
      cache.set(
        doc.userId,
        user && { name: await personalData.open(user.name), email: await personalData.open(user.email) },
      );
    }
    const user = cache.get(doc.userId);
    out.push({ ...doc, userName: user?.name ?? '', userEmail: user?.email ?? '' });
  }
  return out;
}

const withUser = async (ctx: LedgerContext, reads: StoreReads, doc: DepositDoc): Promise<DepositView> =>
  (await withUsers(ctx, reads, [doc]))[0];

/** The deposit as it is shown, or "not found". */
async function depositView(ctx: LedgerContext, reads: StoreReads, depositId: string): Promise<DepositView> {
  const doc = await depositById(reads, depositId);
  if (!doc) throw notFound(DEPOSIT_MESSAGES.notFound);
  return withUser(ctx, reads, doc);
}

export async function createDeposit(
  ctx: LedgerContext,
  input: { actor: Actor; amount: unknown; emailVerified: boolean; idempotencyKey?: string; sentTo?: SentTo },
): Promise<DepositView> {
  const actor = requireActor(input.actor);
  refuseWhileImpersonating(actor);
  const amountCents = parseDepositAmount(input.amount);
  const depositId = input.idempotencyKey ? checkKey(input.idempotencyKey) : ctx.newId();
  return inTransaction(ctx, async (tx) => {
    // an account closed for the user's deletion takes no new deposit
    await refuseClosedAccount(tx, actor.userId);
    // a new request (not a retry of one recorded) is refused while the user has the most pending allowed
    if (!(await depositById(tx, depositId)))
      await capPendingOfUser(tx, {
        collection: COLLECTIONS.deposits,
        where: { userId: actor.userId, status: 'Pending' },
        userId: actor.userId,
        max: ctx.maxPendingDeposits ?? DEFAULT_MAX_PENDING_PER_USER,
        noun: 'deposits',
      });
    await executeDeposit(
      tx,
      depositId,
      {
        type: 'RequestDeposit',
        depositId,
        userId: actor.userId,
        isVerified: input.emailVerified,
        amountCents,
        ...(input.sentTo ? { sentTo: input.sentTo } : {}),
        now: ctx.clock(),
      },
      metaOf(ctx, actor),
    );
    return depositView(ctx, tx, depositId);
  });
}

export async function getDeposit(
  ctx: LedgerContext,
  input: { actor: Actor; depositId: string },
): Promise<DepositView> {
  const actor = requireActor(input.actor);
  const doc = input.depositId ? await depositById(ctx.store, input.depositId) : null;
  if (!doc) throw notFound(DEPOSIT_MESSAGES.notFound);
  // Someone else's deposit answers "not found" too: ids are not a way to learn what exists.
  if (actor.role !== 'admin' && actor.userId !== doc.userId) throw notFound(DEPOSIT_MESSAGES.notFound);
  return withUser(ctx, ctx.store, doc);
}

/** A user's deposits, newest first: all of them, or a page (`limit`, `cursor`: platform ports/pages.ts). */
export async function listUserDeposits(
  ctx: LedgerContext,
  input: { actor: Actor; userId?: string; limit?: number; cursor?: string },
): Promise<Page<DepositView>> {
  const userId = input.userId || requireActor(input.actor).userId;
  requireOwnerOrAdmin(input.actor, userId);
  const page = await depositsOfUser(ctx.store, userId, pageRequest(input));
  return { ...page, items: await withUsers(ctx, ctx.store, page.items) };
}

/** The admin queue, oldest first: all of it, or a page (`limit`, `cursor`: platform ports/pages.ts). */
export async function listPendingDeposits(
  ctx: LedgerContext,
  input: { actor: Actor; limit?: number; cursor?: string },
): Promise<Page<DepositView>> {
  requireAdmin(input.actor);
  const page = await pendingDeposits(ctx.store, pageRequest(input));
  return { ...page, items: await withUsers(ctx, ctx.store, page.items) };
}

/** The admin queue's size, from the read model's counter (never by reading the queue). */
export async function countPendingDeposits(
  ctx: LedgerContext,
  input: { actor: Actor },
): Promise<{ count: number }> {
  requireAdmin(input.actor);
  return { count: await pendingDepositCount(ctx.store) };
}

export async function decideDeposit(
  ctx: LedgerContext,
  input: { actor: Actor; depositId: string; decision: 'confirm' | 'reject'; notes?: string },
): Promise<DepositView> {
  refuseWhileImpersonating(input.actor);
  const actor = requireAdmin(input.actor);
  if (!input.depositId) throw notFound(DEPOSIT_MESSAGES.notFound);
  return inTransaction(ctx, async (tx) => {
    // maker-checker: never an admin's own deposit
    const deposit = await depositById(tx, input.depositId);
    if (deposit)
      refuseOwnDecision(actor.userId, deposit.userId, MAKER_CHECKER_MESSAGES.ownDecision('deposit'));
    const now = ctx.clock();
    const meta = metaOf(ctx, actor);
    const command = {
      type: input.decision === 'confirm' ? 'ConfirmDeposit' : 'RejectDeposit',
      adminId: actor.userId,
      actorRole: actor.role,
      notes: input.notes,
      now,
    } as const;
    const decided = await executeDeposit(tx, input.depositId, command, meta);
    const confirmed = decided.events.find((e) => e.type === 'DepositConfirmed');
    if (confirmed && decided.after.status !== 'none') {
      const { userId, amountCents, depositId } = decided.after;
      const credit = await handleCommand(
        tx,
        LEDGER_STREAM,
        userId,
        {
          type: 'CreditDeposit',
          userId,
          depositId,
          amountCents,
          referralMinimumCents: ctx.referralMinimumCents,
          idempotencyKey: `deposit:${depositId}`,
          transactionId: ctx.newId(),
          now,
        },
        { ...meta, causationId: confirmed.id },
      );
      const earned = credit.events.find((e) => e.type === 'ReferralBonusEarned') as
        { id: string; data: ReferralBonusEarned['data'] } | undefined;
      if (earned) {
        await handleCommand(
          tx,
          LEDGER_STREAM,
          earned.data.referrerId,
          {
            type: 'PayReferralBonus',
            userId: earned.data.referrerId,
            refereeId: earned.data.userId,
            depositId: earned.data.depositId,
            idempotencyKey: `referral:${earned.data.userId}`,
            transactionId: ctx.newId(),
            now,
          },
          { ...meta, causationId: earned.id },
        );
      }
    }
    return depositView(ctx, tx, input.depositId);
  });
}
