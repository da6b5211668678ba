/**
 * Use cases of the investment service. Money requests answer synchronously (DESIGN.md §4): record the
 * request, ask the ledger for the hold with the investment id as idempotency key, record the outcome,
 * answer it. Decisions are recorded first (the stream's version decides which admin wins), then the
 * ledger is told (capture / release / settle) and its confirmation is recorded as an event (HoldCaptured,
 * HoldReleased, MaturitySettled); whatever the ledger did not confirm stays owed — the read model's
 * `sync`, projected from the events — and the process manager (processManager.ts) completes it.
 */
import { invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import { heldRequests } from '@meridian/platform/app/heldRequest/heldRequests';
import {
  type WithUser,
  withUser as withUserOf,
  withUsers as withUsersOf,
} from '@meridian/platform/app/heldRequest/userDirectory';
import { INVESTMENT_MESSAGES, isDue, parseInvestmentAmount, validateRequest } from '../domain/investment.js';
import { planRangeText, type Plan } from '../domain/plan.js';
import {
  type InvestmentDoc,
  COLLECTIONS,
  activeByEndDate,
  investmentById,
  investmentsOfUser,
  owingLedger,
  pendingInvestments,
} from '../projections/investmentView.js';
import {
  type Actor,
  type InvestmentContext,
  MESSAGES,
  checkId,
  executeInvestment,
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

export type InvestmentView = WithUser<InvestmentDoc>;

const withUser = (ctx: InvestmentContext, doc: InvestmentDoc) => withUserOf(ctx.store, doc);
const withUsers = (ctx: InvestmentContext, docs: InvestmentDoc[]) => withUsersOf(ctx.store, docs);

/** The held-money request of an investment: the Deposit Balance held, captured on approval, settled at maturity. */
const investments = heldRequests({
  purpose: 'investment',
  idField: 'investmentId',
  messages: {
    ...INVESTMENT_MESSAGES,
    pendingOutcome: MESSAGES.pendingOutcome,
    idRequired: 'Investment id is required',
  },
  owedCalls: ['hold', 'capture', 'release', 'settle'],
  decisions: { approve: 'ApproveInvestment', reject: 'RejectInvestment' },
  ownCalls: {
    settle: {
      record: 'RecordMaturitySettled',
      async call(ctx: InvestmentContext, doc: InvestmentDoc, investmentId: string) {
        // the capture may still be owed when the approval's ledger call was lost: it is idempotent
        await ctx.ledger.captureHold({
          userId: doc.userId,
          holdId: investmentId,
          idempotencyKey: `capture:${investmentId}`,
        });
        await ctx.ledger.settleMaturity({
          userId: doc.userId,
          investmentId,
          principalCents: doc.amountCents,
          maturityAmountCents: doc.maturityAmountCents ?? doc.amountCents,
          idempotencyKey: `maturity:${investmentId}`,
        });
      },
    },
  },
  load: (ctx: InvestmentContext, id) => investmentById(ctx.store, id),
  owing: (ctx, sync) => owingLedger(ctx.store, sync as Exclude<InvestmentDoc['sync'], 'none'>),
  availableCents: async (ctx, userId) => (await ctx.ledger.getBalances(userId)).depositCents,
  execute: (ctx, id, command, meta) => executeInvestment(ctx, id, () => command, meta),
});

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
  const doc = await investments.submit(ctx, {
    actor,
    requestId: investmentId,
    validate: () => validateRequest(request),
    record: (availableDepositCents, meta) =>
      executeInvestment(
        ctx,
        investmentId,
        () => ({ type: 'RequestInvestment', ...request, availableDepositCents }),
        meta,
      ),
  });
  return { message: SUCCESS.requested, investment: await withUser(ctx, doc) };
}

/** Asks the ledger to hold the funds of a request still awaiting its outcome and records the answer. */
export const placeHoldFor = (ctx: InvestmentContext, investmentId: string): Promise<InvestmentDoc | null> =>
  investments.placeHoldFor(ctx, investmentId);

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
  const synced = await investments.decide(ctx, {
    actor: input.actor,
    requestId: input.investmentId,
    decision: input.decision,
    onRecorded: input.decision === 'approve' ? () => ctx.onScheduleChanged?.() : undefined,
  });
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

/** Makes the ledger call the investment owes (`sync`) and records its confirmation (see heldRequests). */
export const syncLedger = (ctx: InvestmentContext, investmentId: string): Promise<InvestmentDoc | null> =>
  investments.syncLedger(ctx, investmentId);

/** The process manager's sweep: every ledger call owed for longer than `olderThanMs`. */
export const redriveOwed = (ctx: InvestmentContext, olderThanMs: number): Promise<number> =>
  investments.redriveOwed(ctx, olderThanMs);
