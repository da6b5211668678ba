/**
 * Requests and decisions racing each other, as the investment and withdrawal integration specs check them
 * through the gRPC surface against the real ledger (heldRequestRaceSpecs, each kind with its harness's
 * RaceKind): many requests at once against one balance never overdraw it, one request id sent several times
 * holds once, and admins deciding one request at the same time (expectOneDecisionWins): the request's
 * stream records one decision and the other admin is answered ALREADY_EXISTS with a message naming the
 * decision taken. Also the ledger's faults the process manager completes (heldRequestFaultSpecs): a hold,
 * a capture or a release left without an answer, done once after a restart.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { unavailable } from '@meridian/platform/eventSourcing/errors';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { expect, it } from 'vitest';
import type { Decision } from '../app/heldRequests.js';
import type { HoldLedger } from '../app/holdLedger.js';
import { type QueueKind, type QueueStack, callersOf } from './queueSpecs.js';
import { stackPerTest } from './testStack.js';

type Admin = { userId: string; role: string };

/**
 * Two admins approving `same` at once, then an approval and a rejection of `raced` at once: each time one
 * decision wins and the other is refused naming it (`messages`). Resolves to the decision `raced` got.
 */
export async function expectOneDecisionWins(race: {
  same: string;
  raced: string;
  admins: readonly [Admin, Admin];
  decide(decision: Decision, requestId: string, admin: Admin): Promise<unknown>;
  messages: { alreadyApproved: string; alreadyRejected: string };
}): Promise<Decision> {
  const [first, second] = race.admins;
  const settled = async (decisions: readonly [Decision, Decision], requestId: string) => {
    const results = await Promise.allSettled([
      race.decide(decisions[0], requestId, first),
      race.decide(decisions[1], requestId, second),
    ]);
    const won = results.findIndex((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toBeGreaterThanOrEqual(0);
    expect(lost).toHaveLength(1);
    const winner = decisions[won]!;
    expect(lost[0]!.reason).toMatchObject({
      code: status.ALREADY_EXISTS,
      details: winner === 'approve' ? race.messages.alreadyApproved : race.messages.alreadyRejected,
    });
    return winner;
  };
  expect(await settled(['approve', 'approve'], race.same)).toBe('approve');
  return settled(['approve', 'reject'], race.raced);
}

/** The ledger's balances of a user, as the ledger side of a kind's stack reads them. */
type Balances = {
  depositCents: number;
  investedCents: number;
  profitCents: number;
  withdrawalHoldCents: number;
  investmentHoldCents: number;
};
type BalanceField = keyof Balances;

/** What the race specs use of a kind's test stack (its harness's startStack result). */
export interface RaceStack extends QueueStack {
  /** The user's request of `amount` on the kind's harness's terms (`id`: its own); resolves to its id. */
  submit(userId: string, amount: string, id?: string): Promise<string>;
  /** The kind's answer to that request (its message). */
  answer(userId: string, amount: string, id?: string): Promise<{ message: string }>;
  balances(userId: string): Promise<Balances>;
  restart(): Promise<void>;
  /** Restarts the service with `calls` in place of the real ledger's (a ledger call lost). */
  restartWithLedger(calls: Partial<HoldLedger>): Promise<void>;
  service: { redrive(): Promise<number> };
}

/** A held-request kind as its race specs drive it: its queue kind, and its words, statuses and balances. */
export interface RaceKind<S extends RaceStack> extends QueueKind<S> {
  messages: { alreadyExists: string; alreadyApproved: string; alreadyRejected: string; submitted: string };
  /** Two admins (the stack's admin first). */
  admins: readonly [Admin, Admin];
  /** A request's status, as an admin reads it. */
  statusOf(stack: S, requestId: string): Promise<string>;
  /** The status of a request awaiting its decision, and the one each decision leaves it in. */
  statuses: Record<Decision | 'pending', string>;
  /** The balance a request is held from, the one holding it, and the one a capture pays into (none: paid out). */
  balance: { available: BalanceField; held: BalanceField; capturedInto?: BalanceField };
  /** The user funded with $1,000 sends 50 requests of `amount` at once: `accepted` of them fit. */
  parallel: { amount: string; accepted: number };
  /** After the race on the second of two requests of `amount` (a user funded with `fund`): the user's balances. */
  raced: { fund: string; amount: string; balances(won: Decision): Partial<Balances> };
}

const cents = (dollars: string) => Math.round(Number(dollars) * 100);

/** The race specs of a kind, each on a stack of its own (`maxPendingEnv` far above 50 requests of one user). */
export function heldRequestRaceSpecs<S extends RaceStack>(kind: RaceKind<S>): void {
  const stack = stackPerTest(() => kind.startStack({ env: { [kind.maxPendingEnv]: '1000' } }));
  const user = () => `user-${randomUUID()}`;
  const { available, held } = kind.balance;

  it(`50 parallel ${kind.service}s against one balance never overdraw`, async () => {
    const u = user();
    await stack.fund(u, '1000');
    const { amount, accepted } = kind.parallel;
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => stack.submit(u, amount)));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(accepted);
    expect(refused).toHaveLength(50 - accepted);
    for (const r of refused) expect(r.reason.details).toBe('Insufficient balance');
    const heldCents = accepted * cents(amount);
    expect(await stack.balances(u)).toMatchObject({ [available]: 100_000 - heldCents, [held]: heldCents });
    const { ids } = await kind.listPending(stack, callersOf(stack).admin);
    expect(ids).toHaveLength(accepted);
  });

  it('the same request id twice holds once', async () => {
    const u = user();
    await stack.fund(u, '500');
    const id = `${kind.service}-${randomUUID()}`;
    const twice = await Promise.all([stack.submit(u, '100', id), stack.submit(u, '100', id)]);
    const again = await stack.submit(u, '100', id);
    for (const answered of [...twice, again]) expect(answered).toBe(id);
    expect(await stack.balances(u)).toMatchObject({ [available]: 40_000, [held]: 10_000 });
    expect(await grpcErrorOf(stack.submit(u, '150', id))).toMatchObject({
      code: status.ALREADY_EXISTS,
      details: kind.messages.alreadyExists,
    });
  });

  it(`two admins deciding the same ${kind.service}: one wins, the other gets a clear error`, async () => {
    const u = user();
    const { fund, amount } = kind.raced;
    await stack.fund(u, fund);
    const a = await stack.submit(u, amount);
    const b = await stack.submit(u, amount);
    const won = await expectOneDecisionWins({
      same: a,
      raced: b,
      admins: kind.admins,
      decide: (decision, id, admin) => stack.decide(decision, id, admin),
      messages: kind.messages,
    });
    expect(await kind.statusOf(stack, b)).toBe(kind.statuses[won]);
    expect(await stack.balances(u)).toMatchObject({ [held]: 0, ...kind.raced.balances(won) });
  });
}

/** The fault specs of a kind: $100 requests of a user funded with $300, one ledger call lost each. */
export function heldRequestFaultSpecs<S extends RaceStack>(kind: RaceKind<S>): void {
  const stack = stackPerTest(() => kind.startStack({}));
  const { available, held, capturedInto } = kind.balance;
  const funded = async () => {
    const u = `user-${randomUUID()}`;
    await stack.fund(u, '300');
    return u;
  };
  const down = () => Promise.reject(unavailable('ledger down'));

  it('a request left without a hold outcome is re-driven after a restart: held once, never leaked', async () => {
    const u = await funded();
    await stack.restartWithLedger({ placeHold: down });
    const id = `${kind.service}-${randomUUID()}`;
    expect(await grpcErrorOf(stack.submit(u, '100', id))).toMatchObject({ code: status.UNAVAILABLE });
    expect(await kind.statusOf(stack, id)).toBe(kind.statuses.pending);
    expect((await stack.balances(u))[held]).toBe(0);
    await stack.restart(); // the process manager sweeps at start
    const admin = callersOf(stack).admin;
    await waitFor(async () => (await kind.listPending(stack, admin)).ids.includes(id), 'in the queue');
    expect(await stack.balances(u)).toMatchObject({ [available]: 20_000, [held]: 10_000 });
    // the retry answers the recorded outcome without a second hold
    expect((await stack.answer(u, '100', id)).message).toBe(kind.messages.submitted);
    expect(await stack.service.redrive()).toBe(0);
    expect(await stack.balances(u)).toMatchObject({ [available]: 20_000, [held]: 10_000 });
  });

  const into = (cents: number) => (capturedInto ? { [capturedInto]: cents } : {});
  const lostCalls: ReadonlyArray<{
    title: string;
    decision: Decision;
    ledger: Partial<HoldLedger>;
    /** The balances once the call is completed (the held amount is back to 0). */
    after: Partial<Balances>;
  }> = [
    {
      title: 'an approval whose capture was lost is completed by the process manager',
      decision: 'approve',
      ledger: { captureHold: down },
      after: { [available]: 20_000, ...into(10_000) },
    },
    {
      title: 'a rejection whose release was lost is completed by the process manager',
      decision: 'reject',
      ledger: { releaseHold: down },
      after: { [available]: 30_000 },
    },
  ];
  it.each(lostCalls)('$title', async ({ decision, ledger, after }) => {
    const u = await funded();
    const id = await stack.submit(u, '100');
    await stack.restartWithLedger(ledger);
    await stack.decide(decision, id, stack.admin);
    expect(await kind.statusOf(stack, id)).toBe(kind.statuses[decision]);
    expect(await stack.balances(u)).toMatchObject({
      [held]: 10_000,
      ...(decision === 'approve' ? into(0) : {}),
    });
    await stack.restart();
    await waitFor(async () => (await stack.balances(u))[held] === 0, 'completed');
    expect(await stack.balances(u)).toMatchObject(after);
  });
}

/** The gRPC error a rejected call was answered (code and details). */
async function grpcErrorOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to be refused');
}
