/**
 * Use cases of the investment service: the held-money request (@meridian/held-request
 * app/heldRequests.ts) of an investment — the Deposit Balance held, captured on approval —
 * and the investment's own maturity, settled through the ledger (principal + profit into Total Profit).
 * Money requests answer synchronously (docs/architecture.md §4); whatever the ledger did not confirm stays owed —
 * the read model's `sync`, projected from the events — and the process manager (processManager.ts)
 * completes it.
 */
import { heldRequests } from '@meridian/held-request/app/heldRequests';
import type { CloseAccountInput } from '@meridian/platform/app/accountClosure';
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { type WithUser, withUsers } from '@meridian/held-request/app/userDirectory';
import {
  type InvestmentCommand,
  INVESTMENT_DECISIONS,
  INVESTMENT_MESSAGES,
  isDue,
  parseInvestmentAmount,
  validateRequest,
} from '../domain/investment.js';
import { planRangeText, type Plan } from '../domain/plan.js';
import {
  type InvestmentDoc,
  COLLECTIONS,
  DUE_INDEX,
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
  decisions: INVESTMENT_DECISIONS,
  ownCalls: {
    settle: {
      record: 'RecordMaturitySettled',
      async call(ctx: InvestmentContext, doc: InvestmentDoc, investmentId: string) {
        // the ledger captures the hold first when that is still owed (an approval whose ledger call was lost)
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
  execute: (ctx, id, command: InvestmentCommand, meta) => executeInvestment(ctx, id, () => command, meta),
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
    command: (availableDepositCents) => ({ type: 'RequestInvestment', ...request, availableDepositCents }),
  });
  return { message, investment: view };
}

/** Admin, before the user's deletion: the user's investments closed (@meridian/held-request app/closeAccount.ts). */
export const closeAccount = (ctx: InvestmentContext, input: CloseAccountInput) =>
  investments.closeAccount(ctx, input);

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
  await ensureDueIndex(ctx);
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

/** The stores whose due index (DUE_INDEX) this process has ensured. */
const dueIndexed = new WeakSet<object>();
/** Ensures the due scan's index once per store (the scan is then a range, not every investment sorted). */
async function ensureDueIndex(ctx: InvestmentContext): Promise<void> {
  if (dueIndexed.has(ctx.store) || !ctx.store.ensureIndex) return;
  await ctx.store.ensureIndex(DUE_INDEX.collection, [...DUE_INDEX.fields]);
  dueIndexed.add(ctx.store);
}

/** Investments per ledger call of the maturity scheduler (the close-of-business batch). */
export const MATURITY_BATCH = 1000;
/** Documents read per scan of the due-date index (batches are cut from a scan in memory). */
const MATURITY_SCAN = 10_000;

/**
 * Every due investment matured and settled in batches (the scheduler's pass): each batch of
 * MATURITY_BATCH due investments is settled by ONE ledger call first (SettleMaturities: each item under
 * its own key `maturity:<id>`, capturing its hold first when that is still owed), then recorded in one
 * store transaction with ONE append per investment: InvestmentMatured and MaturitySettled together
 * (RecordMaturedAndSettled); the ledger settles the next batches while one is recorded (settleBatches). An
 * Active investment can only mature, so asking the ledger before recording the maturity decides nothing
 * the stream could refuse. A crash between the ledger call and the record
 * leaves the batch Active and due: the next pass asks again, and the ledger's keys make the second call
 * settle nothing twice. An item the ledger refuses is recorded matured alone (Ended, owing `settle` for
 * the process manager); a call whose outcome is unknown records the whole batch that way and fails the
 * pass (retried). Settlements owed that way are settled first, the same way (RecordMaturitySettled).
 * Without a batch call on the port, one investment at a time (settleDue). Returns how many settlements
 * this pass recorded.
 */
export async function settleDueInBatches(
  ctx: InvestmentContext,
  options: { now?: Date; batchSize?: number; scanSize?: number } = {},
): Promise<number> {
  const now = options.now ?? ctx.clock();
  const size = Math.max(1, options.batchSize ?? MATURITY_BATCH);
  const scanSize = Math.max(1, options.scanSize ?? MATURITY_SCAN);
  await ensureDueIndex(ctx);
  if (!ctx.ledger.settleMaturities) return (await settleDue(ctx, { now })).length;
  let recorded = 0;
  // settlements a refusal or an unknown outcome left owing, first
  const owed = await ctx.store.find<InvestmentDoc>(COLLECTIONS.investments, { where: { sync: 'settle' } });
  recorded += await settleBatches(ctx, batchesOf([owed], size), now);
  // then everything due, soonest first
  recorded += await settleBatches(ctx, batchesOf(dueScans(ctx, now, scanSize), size), now);
  if (recorded > 0) ctx.onScheduleChanged?.();
  return recorded;
}

/**
 * The due investments, soonest first, `scanSize` (MATURITY_SCAN) at a time: each scan starts after the last
 * investment of the one before (keyset), so a scan can be read while the batches of the one before are
 * still being settled (they are Active until recorded); the scans end at the first investment not due yet.
 */
async function* dueScans(
  ctx: InvestmentContext,
  now: Date,
  scanSize: number,
): AsyncGenerator<InvestmentDoc[]> {
  let after: InvestmentDoc | undefined;
  for (;;) {
    const page = await activeByEndDate(ctx.store, scanSize, {}, after);
    const due = page.filter((d) => isDue(d, now));
    if (due.length > 0) yield due;
    if (due.length < page.length || page.length < scanSize) return;
    after = page[page.length - 1];
  }
}

/** Lists (or scans) cut into batches of `size`, read as the batches are asked for. */
async function* batchesOf(
  lists: Iterable<InvestmentDoc[]> | AsyncIterable<InvestmentDoc[]>,
  size: number,
): AsyncGenerator<InvestmentDoc[]> {
  for await (const docs of lists)
    for (let at = 0; at < docs.length; at += size) yield docs.slice(at, at + size);
}

/** InvestmentMatured for each (one store transaction; an investment that cannot mature is skipped). */
async function matureBatch(ctx: InvestmentContext, due: InvestmentDoc[], now: Date): Promise<void> {
  const meta = metaOf(ctx);
  await ctx.store.transaction(async () => {
    for (const d of due) {
      try {
        await executeInvestment(ctx, d.investmentId, () => ({ type: 'MatureInvestment', now }), meta);
      } catch (err) {
        ctx.logger.warn({ err, investmentId: d.investmentId }, 'investment not matured; skipped');
      }
    }
  });
}

type LedgerAnswer =
  | { results: Awaited<ReturnType<NonNullable<InvestmentContext['ledger']['settleMaturities']>>> }
  | { error: unknown };

/** The ledger's SettleMaturities call for a batch (never rejects: a failed call is its answer). */
function askLedger(ctx: InvestmentContext, docs: InvestmentDoc[]): Promise<LedgerAnswer> {
  const settle = ctx.ledger.settleMaturities;
  if (!settle) return Promise.resolve({ error: new Error('the ledger port has no batch call') });
  return settle(
    docs.map((d) => ({
      userId: d.userId,
      investmentId: d.investmentId,
      principalCents: d.amountCents,
      maturityAmountCents: d.maturityAmountCents,
      idempotencyKey: `maturity:${d.investmentId}`,
    })),
  ).then(
    (results) => ({ results }),
    (error: unknown) => ({ error }),
  );
}

/**
 * Ledger calls in flight at once in a pass: while a batch is recorded here, the ledger settles the next
 * and has the one after it queued, so it never waits for this side's record to end before it has work
 * (with one call in flight it sat idle whenever a record took longer than its own settlement).
 */
export const MATURITY_CALLS_IN_FLIGHT = 2;

/**
 * The batches of `batches`, pipelined: the ledger settles the next ones (MATURITY_CALLS_IN_FLIGHT calls)
 * while one is recorded here (the ledger is its own process in a deployment: the two overlap), and the
 * next batch is read (a scan of the due index, when one is needed) while calls are in flight. Each batch is
 * recorded after its own call answered, in order; a crash at any point leaves the batches not recorded
 * Active and due (or owing), and the next pass asks again (the keys make the ledger settle nothing twice).
 * A call that fails stops the pass once the calls in flight have answered. Returns how many settlements
 * were recorded.
 */
async function settleBatches(
  ctx: InvestmentContext,
  batches: AsyncIterator<InvestmentDoc[]>,
  now: Date,
): Promise<number> {
  let recorded = 0;
  const inFlight: Array<{ batch: InvestmentDoc[]; answer: Promise<LedgerAnswer> }> = [];
  let exhausted = false;
  const askNext = async () => {
    if (exhausted) return;
    const next = await batches.next();
    if (next.done) exhausted = true;
    else inFlight.push({ batch: next.value, answer: askLedger(ctx, next.value) });
  };
  try {
    while (inFlight.length < MATURITY_CALLS_IN_FLIGHT && !exhausted) await askNext();
    for (let head = inFlight.shift(); head; head = inFlight.shift()) {
      const { batch } = head;
      const answer = await head.answer;
      if ('error' in answer) {
        // the outcome is unknown: the due investments end all the same, owing their settlement
        await matureBatch(
          ctx,
          batch.filter((d) => d.status === 'Active'),
          now,
        );
        throw answer.error;
      }
      await askNext();
      recorded += await recordBatch(ctx, batch, answer.results, now);
    }
  } finally {
    // a record that failed: the calls in flight answer before the pass ends (their batches are asked again)
    await Promise.all(inFlight.map((f) => f.answer));
  }
  return recorded;
}

/**
 * A batch's record after the ledger answered (one store transaction, one append per investment). Returns
 * how many settlements it recorded.
 */
async function recordBatch(
  ctx: InvestmentContext,
  docs: InvestmentDoc[],
  results: Extract<LedgerAnswer, { results: unknown }>['results'],
  now: Date,
): Promise<number> {
  const meta = metaOf(ctx);
  const at = ctx.clock();
  const read = new Map(docs.map((d) => [d.investmentId, d]));
  return ctx.store.transaction(async () => {
    let n = 0;
    for (const r of results) {
      if (!r.settled) {
        ctx.logger.error(
          { err: r.error, investmentId: r.investmentId, sync: 'settle' },
          'ledger call not confirmed; left for the process manager',
        );
        try {
          await executeInvestment(ctx, r.investmentId, () => ({ type: 'MatureInvestment', now }), meta);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          ctx.logger.warn({ err, investmentId: r.investmentId }, 'investment not matured; skipped');
        }
        continue;
      }
      try {
        const { events } = await executeInvestment(
          ctx,
          r.investmentId,
          (state) =>
            state.status === 'Ended'
              ? { type: 'RecordMaturitySettled', now: at }
              : { type: 'RecordMaturedAndSettled', now },
          meta,
          { read: read.get(r.investmentId) },
        );
        if (events.length > 0) n++;
      } catch (err) {
        // the decider refused (the store failing fails the pass: retried)
        if (!(err instanceof DomainError)) throw err;
        ctx.logger.error({ err, investmentId: r.investmentId }, 'settled maturity not recorded; skipped');
      }
    }
    return n;
  });
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
