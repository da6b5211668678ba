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
import { Caller } from '@meridian/proto/meridian/common/v1/common';
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
  /** The admin the specs decide as (the ledger side's). */
  admin: Admin;
  /** What the ledger's invariants find wrong in its store (nothing, after each paging test). */
  ledgerProblems(): Promise<string[]>;
  stop(): Promise<void>;
}

/** A caller's request of a list or a count. */
export type QueueRequest = { caller: Caller; callerRole: string; limit?: number; cursor?: string };

/** A page of a list: its requests' ids, in the list's order, and the cursor of the next page. */
export type QueuePage = { ids: string[]; nextCursor: string };

/** The page of a list's answer: `items` its requests, `idOf` a request's id. */
export const pageOf = <T>(items: readonly T[], idOf: (item: T) => string, nextCursor: string): QueuePage => ({
  ids: items.map(idOf),
  nextCursor,
});

/** A held-request kind as its queue specs drive it, each of its calls named by its harness. */
export interface QueueKind<S extends QueueStack> {
  /** The service's name (in the tests' names). */
  service: string;
  /** The env variable of the cap on one user's pending requests. */
  maxPendingEnv: string;
  /** The kind's pending counter (its view's `counter.id`). */
  counterId: string;
  startStack(options: { env?: Record<string, string> }): Promise<S>;
  /** The admin queue (listPending), oldest first. */
  listPending(stack: S, request: QueueRequest): Promise<QueuePage>;
  /** A user's own requests (`userId` '' for the caller's), newest first. */
  listOwn(stack: S, request: QueueRequest & { userId: string }): Promise<QueuePage>;
  countPending(stack: S, request: QueueRequest): Promise<{ count: number }>;
}

/** The requests the specs list and count as: the stack's admin, or the user `userId`. */
export function callersOf(stack: QueueStack) {
  const admin = { caller: Caller.fromPartial({ userId: stack.admin.userId }), callerRole: 'admin' };
  const asUser = (userId: string) => ({ caller: Caller.fromPartial({ userId }), callerRole: 'subscriber' });
  return { admin, asUser };
}

/**
 * Keyset paging of the admin queue (oldest first) and of a user's own list (newest first), the ledger's
 * invariants holding after each test. Answers the current test's stack (for a kind's own paging specs).
 */
export function heldRequestPagingSpecs<S extends QueueStack>(kind: QueueKind<S>): S {
  // one user's many pending requests: a cap far above them (the cap is heldRequestPendingSpecs')
  const env = { [kind.maxPendingEnv]: '1000' };
  const stack = stackPerTest(() => kind.startStack({ env }));
  it(`pages the pending queue oldest first and a user’s ${kind.service}s newest first`, async () => {
    const { admin, asUser } = callersOf(stack);
    const users = [0, 1].map(() => `user-${randomUUID()}`);
    for (const u of users) await stack.fund(u, '5000');
    for (let i = 0; i < 6; i++) await stack.request(users[i % 2]);
    await expectKeysetPaging({
      order: 'asc',
      add: () => stack.request(users[0]),
      page: (limit, cursor) => kind.listPending(stack, { ...admin, limit, cursor }),
    });
    await expectKeysetPaging({
      order: 'desc',
      add: () => stack.request(users[1]),
      page: (limit, cursor) => kind.listOwn(stack, { ...asUser(users[1]), userId: '', limit, cursor }),
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
    const { admin, asUser } = callersOf(stack);
    const userId = `user-${randomUUID()}`;
    await stack.fund(userId, '5000');
    await expectPendingCounter(
      {
        store: stack.store,
        counterId: kind.counterId,
        count: async () => (await kind.countPending(stack, admin)).count,
        countAsSubscriber: () => kind.countPending(stack, asUser(userId)),
        listed: async () => (await kind.listPending(stack, admin)).ids.length,
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
