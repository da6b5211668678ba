/**
 * Live pushes catch up after a reconnect (web/src/features/live/README.md "Catching up"):
 * a socket that reconnects with its last position gets every push it missed, in order, then live ones;
 * a position the gateway cannot replay from gets 'live/resync'.
 */
import { describe, expect, it } from 'vitest';
import type { TestComposition } from './testing/composition.js';
import type { HttpSession } from './testing/httpSession.js';
import {
  adminBrowser,
  confirmDeposit,
  isBalancePush,
  openSocket,
  requestDeposit,
  verifiedUser,
  waitForBalances,
  type Push,
  type RecordingSocket,
} from './testing/money.js';
import { moneySpec } from './testing/specComposition.js';

let t: TestComposition;
let admin: HttpSession;
const sockets: RecordingSocket[] = [];
moneySpec((s) => void ({ t, admin } = s), sockets);

const seqOf = (p: Push) => Number(String(p.payload.position).split('.')[1]);

async function open(browser: HttpSession, lastPosition: string | null = null) {
  const s = await openSocket(t.url, browser, lastPosition);
  sockets.push(s);
  return s;
}

describe('catch-up after a reconnect', () => {
  it('the investor gets the balance and status pushes missed while offline, in order, without duplicates', async () => {
    const investor = await verifiedUser(t.url);
    const first = await open(investor.browser);
    // stays connected: once it has a push, the hub has published it (so the reconnecting socket can only get it by replay)
    const watcher = await open(investor.browser);
    await confirmDeposit(admin, await requestDeposit(investor.browser, 10));
    await first.waitFor(isBalancePush(10));
    await first.waitFor((p) => p.event === 'status/changed' && p.payload.status === 'Confirmed');
    const last = first.lastPosition();
    expect(last).toMatch(/^[A-Za-z0-9_-]+\.\d+$/);
    first.close();

    // while offline: a second deposit is requested and confirmed
    const missedId = await requestDeposit(investor.browser, 32.25);
    await confirmDeposit(admin, missedId);
    await waitForBalances(investor.browser, { balance: 42.25 });
    await watcher.waitFor(isBalancePush(42.25));
    await watcher.waitFor(
      (p) => p.event === 'status/changed' && p.payload.id === missedId && p.payload.status === 'Confirmed',
    );
    expect(await t.app.gateway.live.head()).not.toBe(last);

    const again = await open(investor.browser, last);
    const replayedBalance = await again.waitFor(isBalancePush(42.25), 'replayed balance');
    expect(replayedBalance.payload).toMatchObject({
      userId: investor.id,
      balances: { balance: 42.25, investmentBalance: 0, totalMaturityAmount: 0 },
    });
    await again.waitFor(
      (p) => p.event === 'status/changed' && p.payload.id === missedId && p.payload.status === 'Confirmed',
      'replayed status',
    );
    const replayed = again.pushes.filter((p) => p.payload.position !== undefined);
    // only what came after `last`, increasing, none twice, and nothing for other rooms
    const lastSeq = Number(last!.split('.')[1]);
    expect(replayed.every((p) => seqOf(p) > lastSeq)).toBe(true);
    expect(replayed.map(seqOf)).toEqual([...new Set(replayed.map(seqOf))].sort((a, b) => a - b));
    expect(replayed.some((p) => p.event.startsWith('queue/'))).toBe(false);
    expect(again.pushes.some((p) => p.event === 'live/resync')).toBe(false);

    // and it continues live after the replay
    await confirmDeposit(admin, await requestDeposit(investor.browser, 1));
    await again.waitFor(isBalancePush(43.25), 'live after replay');
  });

  it('an admin queue catches up: an item requested and decided while offline arrives as added then decided', async () => {
    const adminSocket = await open(admin);
    const watcher = await open(await adminBrowser(t.url));
    const investor = await verifiedUser(t.url);
    const seenId = await requestDeposit(investor.browser, 5);
    await adminSocket.waitFor(
      (p) => p.event === 'queue/itemAdded' && (p.payload.item as { _id: string })._id === seenId,
    );
    const last = adminSocket.lastPosition();
    adminSocket.close();

    const offlineId = await requestDeposit(investor.browser, 6);
    await confirmDeposit(admin, offlineId);
    await confirmDeposit(admin, seenId);
    await waitForBalances(investor.browser, { balance: 11 });
    await watcher.waitFor((p) => p.event === 'queue/itemDecided' && p.payload.id === seenId);

    const back = await open(admin, last);
    await back.waitFor(
      (p) => p.event === 'queue/itemDecided' && p.payload.id === seenId,
      'seen item decided',
    );
    const queue = back.pushes.filter((p) => p.event.startsWith('queue/'));
    const addedAt = queue.findIndex(
      (p) => p.event === 'queue/itemAdded' && (p.payload.item as { _id: string })._id === offlineId,
    );
    const decidedAt = queue.findIndex((p) => p.event === 'queue/itemDecided' && p.payload.id === offlineId);
    expect(addedAt).toBeGreaterThanOrEqual(0);
    expect(decidedAt).toBeGreaterThan(addedAt);
    expect(
      queue.some((p) => p.event === 'queue/itemAdded' && (p.payload.item as { _id: string })._id === seenId),
    ).toBe(false);
  });

  it('a position it cannot replay from (unknown epoch, garbage, from the future, or pushes already dropped) → live/resync', async () => {
    const investor = await verifiedUser(t.url);
    const s = await open(investor.browser);
    await t.app.gateway.live.publish([
      {
        to: { userId: investor.id },
        event: 'status/changed',
        payload: { kind: 'deposit', id: 'x', status: 'Pending' },
      },
    ]);
    await s.waitFor((p) => p.event === 'status/changed' && p.payload.id === 'x');
    const last = s.lastPosition();
    s.close();
    const epoch = last!.split('.')[0];
    for (const bad of ['another-epoch.1', 'garbage', `${epoch}.999999999`]) {
      const b = await open(investor.browser, bad);
      await b.waitFor((p) => p.event === 'live/resync', `resync for ${bad}`);
    }

    // more pushes to this user than the ring keeps (default 500): the oldest missed ones are gone
    await t.app.gateway.live.publish(
      Array.from({ length: 501 }, (_, i) => ({
        to: { userId: investor.id },
        event: 'status/changed',
        payload: { kind: 'deposit', id: `n${i}`, status: 'Pending' },
      })),
    );
    const late = await open(investor.browser, last);
    await late.waitFor((p) => p.event === 'live/resync', 'resync after overflow');
    expect(late.pushes.some((p) => p.event === 'status/changed')).toBe(false);

    // a first connection (no position) gets neither a replay nor a resync
    const fresh = await open(investor.browser);
    await t.app.gateway.live.publish([
      {
        to: { userId: investor.id },
        event: 'status/changed',
        payload: { kind: 'deposit', id: 'marker', status: 'Pending' },
      },
    ]);
    await fresh.waitFor((p) => p.payload.id === 'marker');
    expect(fresh.pushes.map((p) => p.event)).toEqual(['ready', 'status/changed']);
  });
});
