/**
 * Keyset paging of the ledger's lists, through gRPC: the pending deposits queue (oldest
 * first), a user's deposits (newest first, the history's Transaction items) and a user's transactions by
 * cursor (platform testing/pagingSpecs.ts).
 */
import { describe, expect, it } from 'vitest';
import { INVALID_PAGE } from '@meridian/platform/ports/pages';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import {
  expectKeysetPaging,
  expectNoGapWhenItemsLeave,
  walkPages,
} from '@meridian/platform/testing/pagingSpecs';
import { ledgerPerTest } from './testing/harness.js';

// one user's many pending deposits: a cap far above them (the cap is pendingCount.int.spec.ts's)
const h = ledgerPerTest({ env: { LEDGER_MAX_PENDING_DEPOSITS: '1000' } });

describe('paged lists', () => {
  it('pages the pending deposits oldest first and a user’s deposits newest first', async () => {
    const users = [await h.user(), await h.user()];
    for (let i = 0; i < 6; i++) await h.requestDeposit(users[i % 2], `${10 + i}`);
    await expectKeysetPaging({
      order: 'asc',
      add: async () => (await h.requestDeposit(users[0], '7')).depositId,
      page: async (limit, cursor) => {
        const out = await h.call('listPendingDeposits', { ...h.asAdmin(), limit, cursor });
        return { ids: out.deposits.map((d) => d.depositId), nextCursor: out.nextCursor };
      },
    });
    await expectKeysetPaging({
      order: 'desc',
      add: async () => (await h.requestDeposit(users[1], '8')).depositId,
      page: async (limit, cursor) => {
        const out = await h.call('listUserDeposits', {
          caller: users[1].caller,
          callerRole: users[1].callerRole,
          userId: '',
          limit,
          cursor,
        });
        return { ids: out.deposits.map((d) => d.depositId), nextCursor: out.nextCursor };
      },
    });
  });

  it('a deposit confirmed between two pages of the queue leaves no gap; item cursors resume after each item', async () => {
    const u = await h.user();
    for (let i = 0; i < 7; i++) await h.requestDeposit(u, `${20 + i}`);
    const all = await h.call('listPendingDeposits', { ...h.asAdmin(), limit: 0, cursor: '' });
    expect(all.itemCursors).toEqual([]);
    await expectNoGapWhenItemsLeave({
      page: async (limit, cursor) => {
        const out = await h.call('listPendingDeposits', { ...h.asAdmin(), limit, cursor });
        return { ids: out.deposits.map((d) => d.depositId), nextCursor: out.nextCursor };
      },
      remove: async (depositId) => {
        await h.call('confirmDeposit', { ...h.asAdmin(), depositId });
      },
    });

    const page = await h.call('listUserDeposits', { caller: u.caller, callerRole: u.callerRole, limit: 3 });
    expect(page.itemCursors).toHaveLength(3);
    expect(page.itemCursors[2]).toBe(page.nextCursor);
    const after1 = await h.call('listUserDeposits', {
      caller: u.caller,
      callerRole: u.callerRole,
      limit: 2,
      cursor: page.itemCursors[0],
    });
    expect(after1.deposits.map((d) => d.depositId)).toEqual(page.deposits.slice(1).map((d) => d.depositId));
  });

  it('pages a user’s transactions by cursor, newest first, alongside the offset paging', async () => {
    const u = await h.user();
    for (let i = 0; i < 5; i++) await h.fund(u, `${30 + i}`);
    const all = await h.call('listTransactions', { caller: u.caller, callerRole: u.callerRole, limit: 100 });
    expect(all.total).toBe(5);
    const ids = all.transactions.map((t) => t.transactionId);
    const list = {
      page: async (limit: number, cursor: string) => {
        const out = await h.call('listTransactions', {
          caller: u.caller,
          callerRole: u.callerRole,
          limit,
          cursor,
        });
        return { ids: out.transactions.map((t) => t.transactionId), nextCursor: out.nextCursor };
      },
    };
    // the first page (no cursor) carries the cursor of the next
    expect(await walkPages(list, 2)).toEqual(ids);
    const added: string[] = [];
    const seen = await walkPages(list, 2, async () => {
      await h.fund(u, '1');
      added.push('x');
    });
    expect(seen).toEqual(ids);
    expect(added.length).toBeGreaterThan(0);
    for (const [limit, cursor] of [
      [501, 'x'],
      [2, 'nope'],
    ] as const)
      await expectStatus(
        h.call('listTransactions', { caller: u.caller, callerRole: u.callerRole, limit, cursor }),
        grpc.status.INVALID_ARGUMENT,
        INVALID_PAGE,
      );
  });
});

describe('ListBalances (a page of an admin queue shows each investor’s balance)', () => {
  it('answers the balances of several users in the order asked; admin only', async () => {
    const [a, b] = [await h.user(), await h.user()];
    await h.fund(a, '12.34');
    const out = await h.call('listBalances', { ...h.asAdmin(), userIds: [b.userId, a.userId] });
    expect(out.balances.map((x) => [x.userId, x.depositCents])).toEqual([
      [b.userId, 0],
      [a.userId, 1234],
    ]);
    await expectStatus(
      h.call('listBalances', { caller: a.caller, callerRole: a.callerRole, userIds: [a.userId] }),
      grpc.status.PERMISSION_DENIED,
      'Not authorized, admin only',
    );
  });
});
