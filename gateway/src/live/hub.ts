/**
 * The live-push hub of one gateway instance: integration events → pushes → the live log → the sockets
 * of every instance, with exact catch-up after a reconnect to ANY instance
 * (web/src/features/live/README.md, "Catching up"; the log: liveLog.ts).
 *
 * - Every instance subscribes to meridian.{ledger,investment,withdrawal,kyc,identity,support}.events in ONE shared
 *   consumer group (config `liveGroup`, GATEWAY_LIVE_GROUP, default `gateway-live`), so each event is
 *   handled by one instance. That instance maps it to pushes and appends them to the log (Redis when the
 *   gateway has REDIS_URL) once per event id; the log fans every batch out to every instance, and each
 *   emits ONLY to its own sockets in the pushes' rooms.
 * - A bus that refuses a second member of the group on a topic (the in-process bus, one file) leaves this
 *   instance on standby: it asks again every `standbyRetryMs` and takes over when the active one stops.
 * - Positions are the log's `<epoch>.<seq>`: the same on every instance, increasing per socket.
 * - A socket that connects with `auth.lastPosition` gets, before anything live, every push of its rooms
 *   after that position, in order and once (live pushes arriving meanwhile wait and are de-duplicated
 *   by seq). When the log cannot replay exactly (another epoch, a position from the future, pushes after
 *   it dropped, a malformed position) the socket gets `live/resync` `{}` and the screens fetch again.
 * - If the fan-out skips seqs (messages lost while its connection was down), every socket of this
 *   instance catches up from the log the same way.
 * - Personal values (names, emails, wallet addresses) stay sealed as the events carry them in the log (Redis
 *   may persist it); they are opened (`personalData`) just before a push leaves for a socket, in log order.
 */
import type { Server as SocketServer, Socket } from 'socket.io';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf, type EventBus, type Subscription } from '@meridian/platform/ports/eventBus';
import type { EventCodecs } from '@meridian/platform/adapters/eventEnvelope';
import type { PersonalData } from '@meridian/platform/personalData';
import { consumeTraced, inSpan, SpanKind, tracingEnabled } from '@meridian/platform/tracing';
import * as ledgerEvents from '@meridian/proto/meridian/ledger/v1/events';
import * as investmentEvents from '@meridian/proto/meridian/investment/v1/events';
import * as withdrawalEvents from '@meridian/proto/meridian/withdrawal/v1/events';
import * as supportEvents from '@meridian/proto/meridian/support/v1/events';
import type { GatewayLogger } from '../logger.js';
import { ADMINS_ROOM, userRoom } from '../realtime.js';
import { gatewayEventCodecs, pushesForKycEvent } from './kycPushes.js';
import { pushesForMoneyEvent, type LivePush } from './moneyPushes.js';
import { pushesForSupportEvent } from './supportPushes.js';
import { LIVE_EVENTS } from './pushContract.js';
import {
  formatPosition,
  parsePosition,
  type LiveBatch,
  type LiveLog,
  type LoggedPush,
  type Replay,
  type RoomPush,
} from './liveLog.js';

export { parsePosition } from './liveLog.js';

/** Codecs of every event the hub listens to (Kafka bus). */
export const liveEventCodecs: EventCodecs = {
  ...gatewayEventCodecs,
  DepositRequested: ledgerEvents.DepositRequested,
  DepositConfirmed: ledgerEvents.DepositConfirmed,
  DepositRejected: ledgerEvents.DepositRejected,
  BalancesChanged: ledgerEvents.BalancesChanged,
  InvestmentRequested: investmentEvents.InvestmentRequested,
  InvestmentApproved: investmentEvents.InvestmentApproved,
  InvestmentRejected: investmentEvents.InvestmentRejected,
  InvestmentMatured: investmentEvents.InvestmentMatured,
  WithdrawalRequested: withdrawalEvents.WithdrawalRequested,
  WithdrawalApproved: withdrawalEvents.WithdrawalApproved,
  WithdrawalRejected: withdrawalEvents.WithdrawalRejected,
  SupportMessageSent: supportEvents.SupportMessageSent,
  ConversationStarted: supportEvents.ConversationStarted,
  ConversationAssigned: supportEvents.ConversationAssigned,
  ConversationClosed: supportEvents.ConversationClosed,
  ConversationReopened: supportEvents.ConversationReopened,
  ConversationJoined: supportEvents.ConversationJoined,
  SupportReplyEmailRequested: supportEvents.SupportReplyEmailRequested,
};

/** identity: no pushes, but a RoleChanged takes a demoted admin's sockets out of the admins room at once. */
export const LIVE_SOURCES = ['ledger', 'investment', 'withdrawal', 'kyc', 'identity', 'support'] as const;
export type LiveSource = (typeof LIVE_SOURCES)[number];

export interface LiveHubOptions {
  io: SocketServer;
  logger: GatewayLogger;
  log: LiveLog;
  /** How long publish waits for its own batch to come back through the fan-out (default 2 000 ms). */
  fanOutWaitMs?: number;
  /** Opens the sealed personal values of a push before it is emitted (absent: emitted as logged). */
  personalData?: PersonalData;
  /**
   * Called with each support event after its pushes are logged (on the one instance that handles it): the
   * offline reply email (server.ts). Its failure is logged, never retried through the bus.
   */
  onSupportEvent?: (event: Pick<StoredEvent, 'id' | 'type' | 'data'>) => Promise<void>;
}

export interface LiveSubscription extends Subscription {
  /** True while this instance holds the group on every topic (false: standby on some). */
  active(): boolean;
}

export interface LiveHub {
  /**
   * Logs the pushes (once per `eventId` when given) and resolves once this instance has emitted them to
   * its own sockets; returns them with their positions ([] for a redelivered event).
   */
  publish(
    pushes: readonly LivePush[],
    eventId?: string | null,
  ): Promise<Array<LivePush & { position: string }>>;
  /** The pushes an event causes, published once per event id. Throws when the log cannot be written (the bus retries). */
  ingest(event: Pick<StoredEvent, 'id' | 'type' | 'data'>, source: LiveSource): Promise<void>;
  /** Joins the instances' shared group on the LIVE_SOURCES topics (standby where the bus refuses a second member). */
  subscribe(bus: EventBus, group: string, options?: { standbyRetryMs?: number }): Promise<LiveSubscription>;
  /** The position of the newest push in the log ('' before any). */
  head(): Promise<string>;
  stop(): void;
}

interface SocketState {
  /** The newest seq this socket has been given (or needs nothing up to), in `epoch`. */
  last: number;
  epoch: string | null;
  /** Live pushes held back while catch-ups read the log (null: none running). */
  held: Array<{ epoch: string; push: LoggedPush }> | null;
  /** Catch-ups queued or running; they run one after another. */
  pending: number;
  chain: Promise<void>;
}

const isStandby = (err: unknown) =>
  /already has an active subscription/.test(String((err as Error)?.message ?? err));

const roomOf = (to: LivePush['to']) => (to === 'admins' ? ADMINS_ROOM : userRoom(to.userId));

export function createLiveHub(options: LiveHubOptions): LiveHub {
  const { io, logger, log, personalData } = options;
  /** A logged push with its sealed personal values opened (what a socket is given). */
  const openPush = async (p: LoggedPush): Promise<LoggedPush> =>
    personalData ? { ...p, payload: await personalData.openAll(p.payload) } : p;
  const fanOutWaitMs = options.fanOutWaitMs ?? 2_000;
  const states = new WeakMap<Socket, SocketState>();
  /** The fan-out seen so far: its epoch and the newest seq delivered without a gap (null: not known). */
  let epoch: string | null = null;
  let delivered: number | null = null;
  const waiters = new Set<{ epoch: string; seq: number; done: () => void }>();

  const localSockets = () => io.of('/').sockets.values();
  const roomsOf = (socket: Socket) =>
    [...socket.rooms].filter((r) => r === ADMINS_ROOM || r.startsWith('user:'));

  const stateOf = (socket: Socket): SocketState => {
    let st = states.get(socket);
    if (!st) {
      // connected now: nothing before what this instance has delivered concerns it
      st = { last: delivered ?? 0, epoch, held: null, pending: 0, chain: Promise.resolve() };
      states.set(socket, st);
    }
    return st;
  };

  /** Emits `p` unless the socket already has it (seqs only grow within an epoch). */
  const give = (socket: Socket, st: SocketState, pushEpoch: string, p: LoggedPush) => {
    if (st.epoch !== pushEpoch) {
      st.epoch = pushEpoch;
      st.last = 0;
    }
    if (p.seq <= st.last) return;
    st.last = p.seq;
    socket.emit(p.event, { ...p.payload, position: formatPosition(pushEpoch, p.seq) });
  };

  /**
   * Replays what `socket` missed after `from`, then the live pushes held back meanwhile; `from` null or
   * not replayable → 'live/resync'. Live pushes for the socket are held from now until the last queued
   * catch-up is done, so nothing overtakes the replay.
   */
  const catchUp = (socket: Socket, from: { epoch: string; seq: number } | null) => {
    const st = stateOf(socket);
    st.held ??= [];
    st.pending += 1;
    const step = async () => {
      let replay: Replay = { kind: 'resync' };
      if (from) {
        try {
          replay = await log.read(roomsOf(socket), from);
          if (replay.kind === 'pushes')
            replay = { ...replay, pushes: await Promise.all(replay.pushes.map(openPush)) };
        } catch (err) {
          logger.warn({ err }, 'live catch-up: the log could not be read');
        }
      }
      if (replay.kind === 'resync') {
        socket.emit(LIVE_EVENTS.resync, {});
        st.epoch = null;
        st.last = 0;
      } else {
        if (st.epoch !== replay.epoch) {
          st.epoch = replay.epoch;
          st.last = from!.seq;
        }
        for (const p of replay.pushes) give(socket, st, replay.epoch, p);
      }
    };
    st.chain = st.chain
      .then(step)
      .catch((err: unknown) => logger.warn({ err }, 'live catch-up failed'))
      .finally(() => {
        st.pending -= 1;
        if (st.pending > 0 || !st.held) return;
        const held = st.held;
        st.held = null;
        for (const h of held) give(socket, st, h.epoch, h.push);
      });
  };

  const onBatch = (batch: LiveBatch) => {
    const pushes = batch.pushes;
    if (pushes.length === 0) return;
    if (epoch !== batch.epoch) {
      // a new log (Redis emptied): positions of the old one mean nothing any more
      if (epoch !== null) for (const s of localSockets()) catchUp(s, null);
      epoch = batch.epoch;
    } else if (delivered !== null && pushes[0].seq > delivered + 1) {
      // the fan-out lost batches: every socket re-reads its rooms from where it was
      logger.warn(
        { from: delivered + 1, to: pushes[0].seq - 1 },
        'live fan-out skipped pushes; catching sockets up from the log',
      );
      for (const s of localSockets()) {
        const st = stateOf(s);
        catchUp(s, {
          epoch: batch.epoch,
          seq: st.epoch === batch.epoch ? Math.max(st.last, delivered) : delivered,
        });
      }
    }
    const last = pushes[pushes.length - 1].seq;
    delivered = last;
    const nsp = io.of('/');
    for (const p of pushes) {
      const ids = nsp.adapter.rooms.get(p.room);
      if (!ids) continue;
      for (const sid of ids) {
        const socket = nsp.sockets.get(sid);
        if (!socket) continue;
        const st = stateOf(socket);
        if (st.held) st.held.push({ epoch: batch.epoch, push: p });
        else give(socket, st, batch.epoch, p);
      }
    }
    for (const w of waiters) if (w.epoch === batch.epoch && w.seq <= last) w.done();
  };

  /** The fan-out may have lost batches (its connection dropped): catch every socket up from the log. */
  const onLost = () => {
    if (epoch === null) return;
    const known = delivered;
    delivered = null;
    for (const s of localSockets()) {
      const st = stateOf(s);
      const from = st.epoch === epoch ? Math.max(st.last, known ?? 0) : known;
      if (from !== null) catchUp(s, { epoch, seq: from });
    }
  };

  // batches are opened one after another, so they reach the sockets in log order
  let fanOut: Promise<void> = Promise.resolve();
  const inOrder = (step: () => Promise<void> | void) => {
    fanOut = fanOut.then(step).catch((err: unknown) => logger.warn({ err }, 'live fan-out failed'));
  };
  log.onFanOut({
    batch: (batch) =>
      inOrder(async () =>
        onBatch(personalData ? { ...batch, pushes: await Promise.all(batch.pushes.map(openPush)) } : batch),
      ),
    lost: () => inOrder(onLost),
  });

  /** Runs right after realtime.ts's own 'connection' listener joined the socket's rooms. */
  const onConnection = (socket: Socket) => {
    const st = stateOf(socket);
    const raw: unknown = socket.handshake.auth?.lastPosition;
    if (raw === undefined || raw === null || raw === '') return;
    const from = parsePosition(typeof raw === 'number' ? String(raw) : raw);
    if (from) {
      st.epoch = from.epoch;
      st.last = from.seq;
    }
    catchUp(socket, from);
  };
  io.on('connection', onConnection);

  const waitForFanOut = (batchEpoch: string, seq: number) =>
    new Promise<void>((resolve) => {
      if (epoch === batchEpoch && delivered !== null && delivered >= seq) return resolve();
      const w = {
        epoch: batchEpoch,
        seq,
        done: () => {
          clearTimeout(timer);
          waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.done, fanOutWaitMs);
      timer.unref();
      waiters.add(w);
    });

  async function publish(pushes: readonly LivePush[], eventId: string | null = null) {
    const roomPushes: RoomPush[] = pushes.map((p) => ({
      room: roomOf(p.to),
      event: p.event,
      payload: p.payload,
    }));
    const run = async () => {
      const batch = await log.append(eventId, roomPushes);
      if (!batch) return [];
      await waitForFanOut(batch.epoch, batch.pushes.at(-1)!.seq);
      return batch.pushes.map((p, i) => {
        const position = formatPosition(batch.epoch, p.seq);
        return { ...pushes[i], payload: { ...p.payload, position }, position };
      });
    };
    if (!tracingEnabled()) return run();
    // traced as one PRODUCER span: logged, fanned out and emitted to this instance's sockets
    const attributes = {
      'meridian.live.events': roomPushes.map((p) => p.event),
      'meridian.live.rooms': [...new Set(roomPushes.map((p) => p.room))],
    };
    return inSpan('live push', { kind: SpanKind.PRODUCER, attributes }, run);
  }

  async function ingest(event: Pick<StoredEvent, 'id' | 'type' | 'data'>, source: LiveSource) {
    if (source === 'identity') return onIdentityEvent(event);
    let pushes: LivePush[];
    try {
      pushes =
        source === 'kyc'
          ? pushesForKycEvent(event).map(stripPosition)
          : source === 'support'
            ? pushesForSupportEvent(event)
            : pushesForMoneyEvent(event);
    } catch (err) {
      logger.warn({ err, type: event.type }, 'live push failed');
      return;
    }
    if (pushes.length) await publish(pushes, event.id);
    if (source === 'support' && options.onSupportEvent)
      await options
        .onSupportEvent(event)
        .catch((err: unknown) => logger.warn({ err, type: event.type }, 'support event follow-up failed'));
  }

  /**
   * A role change away from admin: every socket of the user, on every instance (the socket.io adapter
   * relays it), leaves the admins room now, not at its next session check (realtime.ts, up to 60 s).
   */
  function onIdentityEvent(event: Pick<StoredEvent, 'type' | 'data'>): void {
    if (event.type !== 'RoleChanged') return;
    const d = (event.data ?? {}) as { userId?: unknown; toRole?: unknown };
    if (typeof d.userId !== 'string' || !d.userId || d.toRole === 'admin') return;
    io.in(userRoom(d.userId)).socketsLeave(ADMINS_ROOM);
  }

  return {
    publish,
    ingest,
    async head() {
      const h = await log.head();
      return h.seq ? formatPosition(h.epoch, h.seq) : '';
    },
    async subscribe(bus, group, { standbyRetryMs = 3_000 } = {}) {
      const subs = new Map<LiveSource, Subscription>();
      const timers = new Set<NodeJS.Timeout>();
      const attempts = new Set<Promise<void>>();
      let stopped = false;

      const attempt = async (source: LiveSource, first: boolean): Promise<void> => {
        try {
          const sub = await bus.subscribe({
            topic: topicOf(source),
            group,
            fromBeginning: false,
            handler: (event) => consumeTraced(topicOf(source), group, event, () => ingest(event, source)),
          });
          if (stopped) return void (await sub.stop());
          subs.set(source, sub);
          if (!first)
            logger.info({ group, topic: topicOf(source) }, 'live pushes: this instance took over the group');
        } catch (err) {
          if (first && !isStandby(err)) throw err;
          if (stopped) return;
          if (!isStandby(err))
            logger.warn({ err, group, topic: topicOf(source) }, 'live pushes: subscribing failed; retrying');
          const timer = setTimeout(() => {
            timers.delete(timer);
            const p = attempt(source, false).finally(() => attempts.delete(p));
            attempts.add(p);
          }, standbyRetryMs);
          timer.unref();
          timers.add(timer);
        }
      };

      const stop = async () => {
        stopped = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        await Promise.allSettled([...attempts]);
        await Promise.all([...subs.values()].map((s) => s.stop()));
        subs.clear();
      };
      try {
        await Promise.all(LIVE_SOURCES.map((s) => attempt(s, true)));
      } catch (err) {
        await stop();
        throw err;
      }
      return { stop, active: () => subs.size === LIVE_SOURCES.length };
    },
    stop() {
      io.off('connection', onConnection);
      for (const w of waiters) w.done();
    },
  };
}

/** kyc pushes (kycPushes.ts) carry their own `kyc:<n>` position; the log stamps its own. */
function stripPosition(p: { to: LivePush['to']; event: string; payload: Record<string, unknown> }): LivePush {
  const { position: _ignored, ...payload } = p.payload;
  return { to: p.to, event: p.event, payload };
}
