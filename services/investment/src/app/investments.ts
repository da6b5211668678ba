/**
 * Use cases of the investment service: the held-money request (@meridian/platform
 * app/heldRequest/heldRequests.ts) of an investment — the Deposit Balance held, captured on approval —
 * and the investment's own maturity, settled through the ledger (principal + profit into Total Profit).
 * Money requests answer synchronously (docs/architecture.md §4); whatever the ledger did not confirm stays owed —
 * the read model's `sync`, projected from the events — and the process manager (processManager.ts)
 * completes it.
 */
import { heldRequests } from '@meridian/platform/app/heldRequest/heldRequests';
import { type WithUser, withUsers } from '@meridian/platform/app/heldRequest/userDirectory';
import { INVESTMENT_MESSAGES, isDue, parseInvestmentAmount, validateRequest } from '../domain/investment.js';
import { planRangeText, type Plan } from '../domain/plan.js';
import {
  type InvestmentDoc,
  COLLECTIONS,
  activeByEndDate,
  investmentById,
  investmentView,
} from '../projections/investmentView.js';
import {
  type Actor,
  type InvestmentContext,
  checkId,
  executeInvestment,
  metaOf,
  requireActor,
  requireOwnerOrAdmin,
} from './context.js';

export const SETTLED = (n: number) =>
  n === 0 ? 'No matured investments to settle' : `${n} matured investment${n === 1 ? '' : 's'} settled`;

export type InvestmentView = WithUser<InvestmentDoc>;

/**
 * The held-money request of an investment: the Deposit Balance held, captured on approval, settled at
 * maturity; its reads and decisions (the gRPC adapter serves them through heldRequestHandlers).
 */
export const investments = heldRequests({
  purpose: 'investment',
  messages: INVESTMENT_MESSAGES,
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
          maturityAmountCents: doc.maturityAmountCents,
          idempotencyKey: `maturity:${investmentId}`,
        });
      },
    },
  },
  view: investmentView,
  // an approval sets an end date: the maturity scheduler re-arms its timer
  onDecided(ctx: InvestmentContext, decision) {
    if (decision === 'approve') ctx.onScheduleChanged?.();
  },
  availableCents: async (ctx: InvestmentContext, userId) =>
    (await ctx.ledger.getBalances(userId)).depositCents,
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
  const { message, view } = await investments.submit(ctx, {
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
  return { message, investment: view };
}

/** Asks the ledger to hold the funds of a request still awaiting its outcome and records the answer. */
export const placeHoldFor = (ctx: InvestmentContext, investmentId: string): Promise<InvestmentDoc | null> =>
  investments.placeHoldFor(ctx, investmentId);

// ---------- admin decisions ----------

export async function decideInvestment(
  ctx: InvestmentContext,
  input: { actor: Actor; investmentId: string; decision: 'approve' | 'reject' },
): Promise<{ message: string; investment: InvestmentView }> {
  const { message, view } = await investments.decide(ctx, {
    actor: input.actor,
    requestId: input.investmentId,
    decision: input.decision,
  });
  return { message, investment: view };
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
  return { message: SETTLED(matured.length), matured: await withUsers(ctx.store, matured) };
}

// ---------- the ledger calls an event owes ----------

/** Makes the ledger call the investment owes (`sync`) and records its confirmation (see heldRequests). */
export const syncLedger = (ctx: InvestmentContext, investmentId: string): Promise<InvestmentDoc | null> =>
  investments.syncLedger(ctx, investmentId);

/** The process manager's sweep: every ledger call owed for longer than `olderThanMs`. */
export const redriveOwed = (ctx: InvestmentContext, olderThanMs: number): Promise<number> =>
  investments.redriveOwed(ctx, olderThanMs);
