/**
 * The queue specs every held-request kind (investment, withdrawal) passes through its gRPC surface,
 * against the real ledger: keyset paging of the admin queue (oldest first) and of a user's own list
 * (newest first) (platform testing/pagingSpecs.ts), the pending counter kept in the command's
 * transaction (platform testing/pendingCountSpecs.ts) and the cap on one user's pending requests
 * (platform testing/pendingCapSpecs.ts). Each kind's spec files call them with its harness's kind.
 */
import { randomUUID } from 'node:crypto';
import { it } from 'vitest';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { expectKeysetPaging } from '@meridian/platform/testing/pagingSpecs';
import { expectPendingCap } from '@meridian/platform/testing/pendingCapSpecs';
import { expectPendingCounter } from '@meridian/platform/testing/pendingCountSpecs';
import { harnessPerTest } from '@meridian/platform/testing/perTest';
import { stackPerTest } from './testStack.js';
import type { Decision } from '../app/heldRequests.js';

type Admin = { userId: string; role: string };

/** What the queue specs use of a kind's test stack (its harness's startStack result). */
export interface QueueStack {
  store: ServiceStore;
  /** Credits the user enough for several requests. */
  fund(userId: string, dollars: string): Promise<void>;
  /** The user's request on the kind's harness's terms (`id`: the request's own, '' for a new one); its id. */
  request(userId: string, id?: string): Promise<string>;
  decide(decision: Decision, requestId: string, admin: Admin): Promise<unknown>;
  call(method: never, request: never): Promise<unknown>;
  /** The admin the specs decide as (the ledger side's). */
  admin: Admin;
  /** What the ledger's invariants find wrong in its store (nothing, after each paging test). */
  ledgerProblems(): Promise<string[]>;
  stop(): Promise<void>;
}

/** A held-request kind as its queue specs drive it. */
export interface QueueKind<S extends QueueStack> {
  /** The service's name: its lists answer `<service>s`, each item with its `<service>Id`. */
  service: string;
  /** The method listing a caller's own requests, newest first. */
  userList: string;
  /** The kind's pending counter (its view's `counter.id`). */
  counterId: string;
  startStack(options: { env?: Record<string, string> }): Promise<S>;
}

/** The kind of `service` listing a caller's own requests with `userList`, its view counting the pending ones. */
export const queueKind = <S extends QueueStack>(
  service: string,
  userList: string,
  view: { counter: { id: string } },
  startStack: (options: { env?: Record<string, string> }) => Promise<S>,
): QueueKind<S> => ({ service, userList, counterId: view.counter.id, startStack });

type Answer = { count: number; nextCursor: string } & Record<string, unknown>;

/** The kind's calls, by method name, and the ids of a list's answer. */
function queueOf<S extends QueueStack>(kind: QueueKind<S>, stack: S) {
  const call = (method: string, request: object) =>
    (stack.call as unknown as (m: string, r: object) => Promise<Answer>)(method, request);
  const items = (out: Answer) => out[`${kind.service}s`] as Record<string, string>[];
  const admin = { caller: { userId: stack.admin.userId }, callerRole: 'admin' };
  const asUser = (userId: string) => ({ caller: { userId }, callerRole: 'subscriber' });
  const page = async (out: Promise<Answer>) => {
    const answer = await out;
    return { ids: items(answer).map((i) => i[`${kind.service}Id`]), nextCursor: answer.nextCursor };
  };
  return { call, items, admin, asUser, page };
}

/**
 * Keyset paging of the admin queue (oldest first) and of a user's own list (newest first), the ledger's
 * invariants holding after each test. Answers the current test's stack (for a kind's own paging specs).
 */
export function heldRequestPagingSpecs<S extends QueueStack>(kind: QueueKind<S>): S {
  // one user's many pending requests: a cap far above them (the cap is heldRequestPendingSpecs')
  const env = { [`${kind.service.toUpperCase()}_MAX_PENDING`]: '1000' };
  const stack = stackPerTest(() => kind.startStack({ env }));
  it(`pages the pending queue oldest first and a user’s ${kind.service}s newest first`, async () => {
    const { call, admin, asUser, page } = queueOf(kind, stack);
    const users = [0, 1].map(() => `user-${randomUUID()}`);
    for (const u of users) await stack.fund(u, '5000');
    for (let i = 0; i < 6; i++) await stack.request(users[i % 2]);
    await expectKeysetPaging({
      order: 'asc',
      add: () => stack.request(users[0]),
      page: (limit, cursor) => page(call('listPending', { ...admin, limit, cursor })),
    });
    await expectKeysetPaging({
      order: 'desc',
      add: () => stack.request(users[1]),
      page: (limit, cursor) => page(call(kind.userList, { ...asUser(users[1]), userId: '', limit, cursor })),
    });
  });
  return stack;
}

/** The pending counter through request, approve, reject, replays and a backfill; the cap on one user's pending requests. */
export function heldRequestPendingSpecs<S extends QueueStack>(kind: QueueKind<S>): void {
  const stack = harnessPerTest(
    `the ${kind.service} stack`,
    () => kind.startStack({}),
    (s) => s.stop(),
  );
  it(`counts the pending ${kind.service}s through request, approve, reject, replays and a backfill`, async () => {
    const { call, items, admin, asUser } = queueOf(kind, stack);
    const userId = `user-${randomUUID()}`;
    await stack.fund(userId, '5000');
    await expectPendingCounter(
      {
        store: stack.store,
        counterId: kind.counterId,
        count: async () => (await call('countPending', admin)).count,
        countAsSubscriber: () => call('countPending', asUser(userId)),
        listed: async () => items(await call('listPending', admin)).length,
        request: (id) => stack.request(userId, id),
        decide: (id, decision) => stack.decide(decision, id, stack.admin),
      },
      () => randomUUID(),
    );
  });

  it(`caps the pending ${kind.service}s of one user (5), race-safe, with a clear message`, async () => {
    const userId = `user-${randomUUID()}`;
    await stack.fund(userId, '5000');
    await expectPendingCap(
      {
        noun: `${kind.service}s`,
        request: (id) => stack.request(userId, id),
        reject: (id) => stack.decide('reject', id, stack.admin),
      },
      () => randomUUID(),
    );
  });
}
