/**
 * Use cases of the investment service. Money requests answer synchronously (DESIGN.md §4): record the
 * request, ask the ledger for the hold with the investment id as idempotency key, record the outcome,
 * answer it. Decisions are recorded first (the stream's version decides which admin wins), then the
 * ledger is told (capture / release / settle) and its confirmation is recorded as an event (HoldCaptured,
 * HoldReleased, MaturitySettled); whatever the ledger did not confirm stays owed — the read model's
 * `sync`, projected from the events — and the process manager (processManager.ts) completes it.
 */
import { invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import { answerHeldRequest, placeHoldForRequest } from '@meridian/ledger/client/heldRequest';
import {
  INVESTMENT_MESSAGES,
  isDue,
  parseInvestmentAmount,
  validateRequest,
} from '../domain/investment.js';
import { planRangeText, type Plan } from '../domain/plan.js';
import {
  type InvestmentDoc,
  type UserDoc,
  COLLECTIONS,
  activeByEndDate,
  investmentById,
  investmentsOfUser,
  owingLedger,
  pendingInvestments,
  userById,
} from '../projections/investmentView.js';
import {
  type Actor,
  type InvestmentContext,
  MESSAGES,
  checkId,
  executeInvestment,
  isUnknownOutcome,
  metaOf,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from './context.js';

export const SUCCESS = {
  requested: 'Investment request submitted successfully',
  approved: 'Investment approved successfully',
  rejected: 'Investment rejected successfully',
  settled: (n: number) =>
    n === 0 ? 'No matured investments to settle' : `${n} matured investment${n === 1 ? '' : 's'} settled`,
} as const;

export type InvestmentView = InvestmentDoc & { userName: string; userEmail: string };

async function withUser(ctx: InvestmentContext, doc: InvestmentDoc): Promise<InvestmentView> {
  const user = await userById(ctx.store, doc.userId);
  return { ...doc, userName: user?.name ?? '', userEmail: user?.email ?? '' };
}

async function withUsers(ctx: InvestmentContext, docs: InvestmentDoc[]): Promise<InvestmentView[]> {
  const users = new Map<string, UserDoc | null>();
  for (const d of docs) if (!users.has(d.userId)) users.set(d.userId, await userById(ctx.store, d.userId));
  return docs.map((d) => ({
    ...d,
    userName: users.get(d.userId)?.name ?? '',
    userEmail: users.get(d.userId)?.email ?? '',
  }));
}

export const listPlans = (ctx: InvestmentContext): Array<Plan & { rangeText: string }> =>
  ctx.plans.map((p) => ({ ...p, rangeText: planRangeText(p) }));

// ---------- start invest ----------

export async function startInvest(
  ctx: InvestmentContext,
  input: { actor: Actor; isVerified: boolean; planName: string; amount: unknown; investmentId?: string },
): Promise<{ message: string; investment: InvestmentView }> {
  const actor = requireActor(input.actor);
  const investmentId = input.investmentId ? checkId(input.investmentId) : ctx.newId();
  const amountCents = parseInvestmentAmount(input.amount);
  const request = {
    investmentId,
    userId: actor.userId,
    isVerified: input.isVerified,
    planName: input.planName ?? '',
    plans: ctx.plans,
    amountCents,
    now: ctx.clock(),
  };
  const existing = await investmentById(ctx.store, investmentId);
  // every rule but the balance first, so a bad request never waits on the ledger
  if (!existing) validateRequest(request);
  const availableDepositCents = existing ? 0 : (await ctx.ledger.getBalances(actor.userId)).depositCents;
  await executeInvestment(
    ctx,
    investmentId,
    () => ({ type: 'RequestInvestment', ...request, availableDepositCents }),
    metaOf(ctx, actor),
  );

  const doc = answerHeldRequest(await placeHoldFor(ctx, investmentId), {
    notFound: INVESTMENT_MESSAGES.notFound,
    insufficientBalance: INVESTMENT_MESSAGES.insufficientBalance,
    pendingOutcome: MESSAGES.pendingOutcome,
  });
  return { message: SUCCESS.requested, investment: await withUser(ctx, doc) };
}

/**
 * Asks the ledger to hold the funds of a request still awaiting its outcome and records the answer.
 * Idempotent (the ledger's key is the investment id): the request path and the process manager may
 * both call it. An unknown outcome leaves the request awaiting.
 */
export async function placeHoldFor(
  ctx: InvestmentContext,
  investmentId: string,
): Promise<InvestmentDoc | null> {
  return placeHoldForRequest({
    ledger: ctx.ledger,
    logger: ctx.logger,
    clock: ctx.clock,
    requestId: investmentId,
    purpose: 'investment',
    logFields: { investmentId },
    load: () => investmentById(ctx.store, investmentId),
    meta: () => metaOf(ctx),
    record: async (command, meta) => (await executeInvestment(ctx, investmentId, () => command, meta)).doc,
  });
}

// ---------- reads ----------

export async function investmentHistory(
  ctx: InvestmentContext,
  input: { actor: Actor; userId?: string },
): Promise<InvestmentView[]> {
  const actor = requireActor(input.actor);
  const userId = input.userId || actor.userId;
  requireOwnerOrAdmin(actor, userId);
  return withUsers(ctx, await investmentsOfUser(ctx.store, userId));
}

export async function getInvestment(
  ctx: InvestmentContext,
  input: { actor: Actor; investmentId: string },
): Promise<InvestmentView> {
  const actor = requireActor(input.actor);
  if (!input.investmentId) throw invalid('Investment id is required');
  const doc = await investmentById(ctx.store, input.investmentId);
  if (!doc) throw notFound(INVESTMENT_MESSAGES.notFound);
  requireOwnerOrAdmin(actor, doc.userId);
  return withUser(ctx, doc);
}

export async function listPending(
  ctx: InvestmentContext,
  input: { actor: Actor },
): Promise<InvestmentView[]> {
  requireAdmin(input.actor);
  return withUsers(ctx, await pendingInvestments(ctx.store));
}

// ---------- admin decisions ----------

export async function decideInvestment(
  ctx: InvestmentContext,
  input: { actor: Actor; investmentId: string; decision: 'approve' | 'reject' },
): Promise<{ message: string; investment: InvestmentView }> {
  const actor = requireAdmin(input.actor);
  if (!input.investmentId) throw invalid('Investment id is required');
  const now = ctx.clock();
  const { doc } = await executeInvestment(
    ctx,
    input.investmentId,
    () => ({
      type: input.decision === 'approve' ? 'ApproveInvestment' : 'RejectInvestment',
      adminId: actor.userId,
      actorRole: actor.role,
      now,
    }),
    metaOf(ctx, actor),
  );
  if (!doc) throw notFound(INVESTMENT_MESSAGES.notFound);
  if (input.decision === 'approve') ctx.onScheduleChanged?.();
  const synced = (await syncLedger(ctx, input.investmentId)) ?? doc;
  return {
    message: input.decision === 'approve' ? SUCCESS.approved : SUCCESS.rejected,
    investment: await withUser(ctx, synced),
  };
}

// ---------- maturity ----------

/**
 * Matures one investment if it is due (InvestmentMatured once), then settles it through the ledger.
 * Returns the document when this call matured it, null otherwise.
 */
export async function matureIfDue(
  ctx: InvestmentContext,
  investmentId: string,
  now: Date = ctx.clock(),
): Promise<InvestmentDoc | null> {
  const doc = await investmentById(ctx.store, investmentId);
  if (!doc || !isDue(doc, now)) {
    if (doc?.sync === 'settle') await syncLedger(ctx, investmentId);
    return null;
  }
  const { events } = await executeInvestment(
    ctx,
    investmentId,
    () => ({ type: 'MatureInvestment', now }),
    metaOf(ctx),
  );
  const settled = await syncLedger(ctx, investmentId);
  ctx.onScheduleChanged?.();
  return events.length > 0 ? settled : null;
}

/** Every due investment (all users, or one), soonest first. Returns how many this call matured. */
export async function settleDue(
  ctx: InvestmentContext,
  options: { userId?: string; now?: Date } = {},
): Promise<InvestmentDoc[]> {
  const now = options.now ?? ctx.clock();
  const matured: InvestmentDoc[] = [];
  for (;;) {
    const batch = await activeByEndDate(ctx.store, 100, options.userId ? { userId: options.userId } : {});
    const due = batch.filter((d) => isDue(d, now));
    if (due.length === 0) break;
    for (const d of due) {
      const done = await matureIfDue(ctx, d.investmentId, now);
      if (done) matured.push(done);
    }
    if (due.length < batch.length || batch.length < 100) break;
  }
  return matured;
}

/** api/invest/deposit-maturity: the caller's due investments settled at once; again = nothing more. */
export async function settleDueForUser(
  ctx: InvestmentContext,
  input: { actor: Actor; userId?: string },
): Promise<{ message: string; matured: InvestmentView[] }> {
  const actor = requireActor(input.actor);
  const userId = input.userId || actor.userId;
  requireOwnerOrAdmin(actor, userId);
  const matured = await settleDue(ctx, { userId });
  // settlements of this user a crash left owing
  for (const d of await ctx.store.find<InvestmentDoc>(COLLECTIONS.investments, {
    where: { userId, sync: 'settle' },
  })) {
    await syncLedger(ctx, d.investmentId);
  }
  return { message: SUCCESS.settled(matured.length), matured: await withUsers(ctx, matured) };
}

// ---------- the ledger calls an event owes ----------

/**
 * Makes the ledger call the investment owes (`sync`), then records the ledger's confirmation as an
 * event (which clears `sync`). Idempotent (every call carries a key derived from the investment id, and
 * recording a confirmation again records nothing). An unknown outcome or a ledger refusal leaves the
 * call owed for the process manager; the document is returned as it stands.
 */
export async function syncLedger(
  ctx: InvestmentContext,
  investmentId: string,
): Promise<InvestmentDoc | null> {
  const doc = await investmentById(ctx.store, investmentId);
  if (!doc || doc.sync === 'none') return doc;
  if (doc.sync === 'hold') return placeHoldFor(ctx, investmentId);
  const { userId } = doc;
  const owed = doc.sync;
  try {
    if (doc.sync === 'capture') {
      await ctx.ledger.captureHold({
        userId,
        holdId: investmentId,
        idempotencyKey: `capture:${investmentId}`,
      });
    } else if (doc.sync === 'release') {
      await ctx.ledger.releaseHold({
        userId,
        holdId: investmentId,
        idempotencyKey: `release:${investmentId}`,
      });
    } else {
      // the capture may still be owed when the approval's ledger call was lost: it is idempotent
      await ctx.ledger.captureHold({
        userId,
        holdId: investmentId,
        idempotencyKey: `capture:${investmentId}`,
      });
      await ctx.ledger.settleMaturity({
        userId,
        investmentId,
        principalCents: doc.amountCents,
        maturityAmountCents: doc.maturityAmountCents ?? doc.amountCents,
        idempotencyKey: `maturity:${investmentId}`,
      });
    }
  } catch (err) {
    const level = isUnknownOutcome(err) ? 'warn' : 'error';
    ctx.logger[level](
      { err, investmentId, sync: doc.sync },
      'ledger call not confirmed; left for the process manager',
    );
    return doc;
  }
  const type =
    owed === 'capture' ? 'RecordHoldCaptured' : owed === 'release' ? 'RecordHoldReleased' : 'RecordMaturitySettled';
  const { doc: recorded } = await executeInvestment(
    ctx,
    investmentId,
    () => ({ type, now: ctx.clock() }),
    metaOf(ctx),
  );
  return recorded;
}

/** The process manager's sweep: every ledger call owed for longer than `olderThanMs`. */
export async function redriveOwed(ctx: InvestmentContext, olderThanMs: number): Promise<number> {
  const cutoff = ctx.clock().getTime() - olderThanMs;
  let driven = 0;
  for (const sync of ['hold', 'capture', 'release', 'settle'] as const) {
    for (const doc of await owingLedger(ctx.store, sync)) {
      if (Date.parse(doc.syncSince) > cutoff) continue;
      await syncLedger(ctx, doc.investmentId);
      driven++;
    }
  }
  return driven;
}
