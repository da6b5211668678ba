/**
 * Live pushes across gateway instances: two gateways on one in-process bus (one file) and one
 * Redis. They share ONE live-push group, so each event is handled by one of them (the other waits on
 * standby); the pushes go through the shared live log, so a socket that reconnects to the other instance, or
 * to a restarted one, gets exactly what it missed, with the same positions; 'live/resync' only for a
 * position the log no longer covers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '@meridian/platform/testing/tempDir';
import type { RunningGateway } from './server.js';
import { startGatewayInstance, startTestComposition, type TestComposition } from './testing/composition.js';
import { HttpSession } from './testing/httpSession.js';
import {
  adminBrowser,
  confirmDeposit,
  isBalancePush,
  openSocket,
  requestDeposit,
  verifiedUser,
  waitFor,
  type Push,
  type RecordingSocket,
} from './testing/money.js';

const RING = 20;
const dir = tempDir('meridian-live-');
let t: TestComposition;
/** Instance A: the composition's own gateway, started first, so it holds the group. */
let a: RunningGateway;
/** Instance B: a second gateway process-alike on the same bus file and Redis. */
let b: RunningGateway;
let admin: HttpSession;
const extraGateways: RunningGateway[] = [];
const sockets: RecordingSocket[] = [];

/** Another gateway instance like the composition's own: same bus file, same Redis namespace, same services. */
async function startInstance(): Promise<RunningGateway> {
  const gw = await startGatewayInstance(t, dir.path, { liveRingSize: RING });
  extraGateways.push(gw);
  return gw;
}

/** The same browser (cookies) talking to another instance. */
function via(browser: HttpSession, gw: RunningGateway): HttpSession {
  const moved = new HttpSession(gw.url);
  for (const [k, v] of browser.cookies) moved.cookies.set(k, v);
  return moved;
}

async function open(gw: RunningGateway, browser: HttpSession, lastPosition: string | null = null) {
  const s = await openSocket(gw.url, browser, lastPosition);
  sockets.push(s);
  return s;
}

/** A push `id` to the user on `gw`'s socket, seen: the position it was sent at (the socket then closed). */
async function positionAfterOne(gw: RunningGateway, user: { id: string; browser: HttpSession }, id: string) {
  const s = await open(gw, user.browser);
  await gw.live.publish([
    { to: { userId: user.id }, event: 'status/changed', payload: { kind: 'deposit', id, status: 'Pending' } },
  ]);
  await s.waitFor((p) => p.payload.id === id);
  const last = s.lastPosition()!;
  s.close();
  return last;
}

const seqOf = (position: unknown) => Number(String(position).split('.')[1]);
const positioned = (s: RecordingSocket) => s.pushes.filter((p) => typeof p.payload.position === 'string');
const after = (s: RecordingSocket, last: string) =>
  positioned(s).filter((p) => seqOf(p.payload.position) > seqOf(last));
const isStatus = (id: string, status: string) => (p: Push) =>
  p.event === 'status/changed' && p.payload.id === id && p.payload.status === status;

/** Waits until `s` has every positioned push `expected` ends with, then compares the pushes after `last`. */
async function expectReplayed(s: RecordingSocket, expected: Push[], last: string) {
  const final = expected.at(-1)!.payload.position;
  await s.waitFor((p) => p.payload.position === final, `replay up to ${String(final)}`);
  expect(after(s, last)).toEqual(expected);
  expect(s.pushes.some((p) => p.event === 'live/resync')).toBe(false);
}

beforeAll(async () => {
  t = await startTestComposition({
    dataDir: dir.path,
    gateway: { liveRingSize: RING, liveStandbyRetryMs: 50 },
  });
  a = t.app.gateway;
  b = await startInstance();
  admin = await adminBrowser(t.url);
});

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

afterAll(async () => {
  for (const gw of extraGateways) await gw.stop();
  await t?.stop();
  dir.remove();
});

describe('live pushes across gateway instances', () => {
  it('one instance handles the events, every instance emits them with the same positions; a socket moving to the other instance gets exactly what it missed', async () => {
    expect(a.liveSubscription.active()).toBe(true);
    expect(b.liveSubscription.active()).toBe(false); // standby: the in-process bus has one member per group and topic
    const investor = await verifiedUser(t.url);
    const onA = await open(a, investor.browser);
    const watcherOnB = await open(b, investor.browser); // stays connected throughout
    const adminOnB = await open(b, admin);

    const firstId = await requestDeposit(investor.browser, 10);
    await confirmDeposit(admin, firstId);
    await onA.waitFor(isBalancePush(10), 'balance on A');
    await onA.waitFor(isStatus(firstId, 'Confirmed'), 'status on A');
    await watcherOnB.waitFor(isBalancePush(10), 'balance on B');
    await watcherOnB.waitFor(isStatus(firstId, 'Confirmed'), 'status on B');
    await adminOnB.waitFor(
      (p) => p.event === 'queue/itemDecided' && p.payload.id === firstId,
      'admin queue on B',
    );
    // the same pushes with the same positions on both instances
    expect(positioned(watcherOnB)).toEqual(positioned(onA));
    const last = onA.lastPosition()!;
    onA.close();

    // while the socket is away: a deposit requested and confirmed (handled by A, logged for everyone)
    const missedId = await requestDeposit(investor.browser, 32.25);
    await confirmDeposit(admin, missedId);
    await watcherOnB.waitFor(isBalancePush(42.25), 'missed balance on the watcher');
    await watcherOnB.waitFor(isStatus(missedId, 'Confirmed'), 'missed status on the watcher');
    const missed = after(watcherOnB, last);
    expect(missed.map((p) => p.event).sort()).toEqual([
      'balances/changed',
      'status/changed',
      'status/changed',
    ]);

    const back = await open(b, investor.browser, last);
    await expectReplayed(back, missed, last);

    // then live, on B, for an event A handles
    await confirmDeposit(admin, await requestDeposit(investor.browser, 1));
    await back.waitFor(isBalancePush(43.25), 'live after the replay');
    const seqs = positioned(back).map((p) => seqOf(p.payload.position));
    expect(seqs).toEqual([...new Set(seqs)].sort((x, y) => x - y));
  });

  it('the same event handled twice (a redelivery, even on the other instance) pushes once', async () => {
    const investor = await verifiedUser(t.url);
    const socket = await open(b, investor.browser);
    const event = (id: string, cents: number) => ({
      id,
      type: 'BalancesChanged',
      data: { userId: investor.id, depositCents: cents, investedCents: 0, profitCents: 0 },
    });
    const id = randomUUID();
    await a.live.ingest(event(id, 111), 'ledger');
    await b.live.ingest(event(id, 111), 'ledger');
    await a.live.ingest(event(id, 111), 'ledger');
    await a.live.ingest(event(randomUUID(), 222), 'ledger');
    await socket.waitFor(isBalancePush(2.22), 'the next event');
    expect(socket.pushes.filter(isBalancePush(1.11))).toHaveLength(1);
  });

  it('a position the shared log no longer covers (or from another epoch, or malformed) → live/resync, on either instance', async () => {
    const investor = await verifiedUser(t.url);
    const last = await positionAfterOne(a, investor, 'seen');
    // more pushes to this user than a room keeps: the first missed one is gone
    await b.live.publish(
      Array.from({ length: RING + 1 }, (_, i) => ({
        to: { userId: investor.id },
        event: 'status/changed',
        payload: { kind: 'deposit', id: `n${i}`, status: 'Pending' },
      })),
    );
    for (const gw of [a, b]) {
      const late = await open(gw, investor.browser, last);
      await late.waitFor((p) => p.event === 'live/resync', 'resync after overflow');
      expect(late.pushes.some((p) => p.event === 'status/changed')).toBe(false);
    }
    const epoch = last.split('.')[0];
    for (const bad of [`another${epoch}.1`, 'garbage', `${epoch}.999999999`]) {
      const late = await open(b, investor.browser, bad);
      await late.waitFor((p) => p.event === 'live/resync', `resync for ${bad}`);
    }
    // one push fewer than a room keeps is replayed in full
    const last2 = await positionAfterOne(a, investor, 'seen2');
    const sent = await a.live.publish(
      Array.from({ length: RING }, (_, i) => ({
        to: { userId: investor.id },
        event: 'status/changed',
        payload: { kind: 'deposit', id: `m${i}`, status: 'Pending' },
      })),
    );
    const full = await open(b, investor.browser, last2);
    await full.waitFor((p) => p.payload.id === `m${RING - 1}`, 'full replay');
    expect(after(full, last2).map((p) => p.payload)).toEqual(sent.map((p) => p.payload));
  });

  it('when the consuming instance stops the standby takes over, and a restarted instance replays what the socket missed', async () => {
    const investor = await verifiedUser(t.url);
    const onB = await open(b, investor.browser);
    const watcherOnB = await open(b, investor.browser); // stays until B stops
    await a.stop();
    await waitFor(() => b.liveSubscription.active(), {
      timeoutMs: 5_000,
      message: 'B took over the live group',
    });
    const investorViaB = via(investor.browser, b);
    const adminViaB = via(admin, b);

    const firstId = await requestDeposit(investorViaB, 7);
    await confirmDeposit(adminViaB, firstId);
    await onB.waitFor(isBalancePush(7), 'balance, B consuming');
    await onB.waitFor(isStatus(firstId, 'Confirmed'), 'status, B consuming');
    const last = onB.lastPosition()!;
    onB.close();

    // while the socket is away: B logs more, then B is restarted (stop + a new instance C)
    const missedId = await requestDeposit(investorViaB, 5);
    await confirmDeposit(adminViaB, missedId);
    await watcherOnB.waitFor(isBalancePush(12), 'missed balance');
    await watcherOnB.waitFor(isStatus(missedId, 'Confirmed'), 'missed status');
    const missed = after(watcherOnB, last);
    await b.stop();
    const c = await startInstance();
    expect(c.liveSubscription.active()).toBe(true); // the only member now

    const back = await open(c, investor.browser, last);
    await expectReplayed(back, missed, last);

    // C consumes: live after the replay
    const liveId = await requestDeposit(via(investor.browser, c), 3);
    await confirmDeposit(via(admin, c), liveId);
    await back.waitFor(isBalancePush(15), 'live on the restarted instance');
  });
});

describe('the support chat across instances', () => {
  it('a reply sent through one instance reaches the investor on another; one sent while away is replayed there', async () => {
    // instances of this test's own (earlier tests stop the first two): requests through one, sockets on the other
    const sender = await startInstance();
    const b2 = await startInstance();
    const investor = await verifiedUser(sender.url);
    const adminViaSender = via(admin, sender);
    const isReply = (text: string) => (p: Push) =>
      p.event === 'support/message' && (p.payload.message as { text?: string }).text === text;
    const onB = await open(b2, investor.browser);
    const sent = await via(investor.browser, sender).post('/api/support/conversations/mine/messages', {
      text: 'Through the sender',
    });
    expect(sent.status).toBe(201);
    const id = sent.body.conversation._id as string;

    expect(
      (
        await adminViaSender.post(`/api/support/conversations/${id}/messages`, {
          text: 'Reply through the sender',
        })
      ).status,
    ).toBe(201);
    await onB.waitFor(isReply('Reply through the sender'), 'the reply on B');
    const last = onB.lastPosition()!;
    onB.close();

    const watcher = await open(b2, admin);
    await adminViaSender.post(`/api/support/conversations/${id}/messages`, { text: 'While you were away' });
    await watcher.waitFor(isReply('While you were away'), 'the admin sees it');
    const back = await open(b2, investor.browser, last);
    await back.waitFor(isReply('While you were away'), 'replayed after the reconnect');
    expect(back.pushes.some((p) => p.event === 'live/resync')).toBe(false);
    expect(back.pushes.filter(isReply('Reply through the sender'))).toHaveLength(0);
  });
});
