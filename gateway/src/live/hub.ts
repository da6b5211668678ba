/**
 * The live-push hub of one gateway instance: integration events → pushes → the sockets of this
 * instance, with catch-up after a reconnect (web/src/features/live/README.md, "Catching up").
 *
 * - Each instance subscribes to meridian.{ledger,investment,withdrawal,kyc}.events in its own consumer
 *   group (every instance sees every event) and emits ONLY to its own sockets (never through the Redis
 *   adapter, which would deliver each push once per instance).
 * - Every push gets a position `<epoch>.<seq>`: `epoch` is this hub's random id, `seq` increases with
 *   every push the hub emits, whatever the room. A socket's pushes therefore arrive in increasing order.
 * - A bounded ring of recent pushes is kept per room (`user:<id>`, `admins`; at most `ringSize` pushes a
 *   room, at most `maxRooms` rooms, least recently used dropped first).
 * - A socket that connects with `auth.lastPosition` of this epoch gets, right after joining its rooms,
 *   every push of its rooms with a greater seq, in order, before anything live (join and replay happen
 *   in one synchronous step). When that cannot be done exactly (another epoch: a restarted or different
 *   instance; or the ring already dropped pushes after that position) it gets `live/resync` `{}` and the
 *   screens fetch again.
 */
import { randomBytes } from 'node:crypto';
import type { Server as SocketServer, Socket } from 'socket.io';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf, type EventBus, type Subscription } from '@meridian/platform/ports/eventBus';
import type { EventCodecs } from '@meridian/platform/adapters/eventEnvelope';
import * as ledgerEvents from '@meridian/proto/meridian/ledger/v1/events';
import * as investmentEvents from '@meridian/proto/meridian/investment/v1/events';
import * as withdrawalEvents from '@meridian/proto/meridian/withdrawal/v1/events';
import type { GatewayLogger } from '../logger.js';
import { ADMINS_ROOM, userRoom } from '../realtime.js';
import { gatewayEventCodecs, pushesForKycEvent } from '../live.js';
import { LIVE_EVENT, pushesForMoneyEvent, type LivePush } from './moneyPushes.js';

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
};

interface RingEntry {
  seq: number;
  event: string;
  payload: Record<string, unknown>;
}

interface Ring {
  entries: RingEntry[];
  /** The seq of the newest push this room lost to the bound (0 = none lost). */
  floor: number;
}

export interface LiveHubOptions {
  io: SocketServer;
  logger: GatewayLogger;
  /** Pushes kept per room (default 500). */
  ringSize?: number;
  /** Rooms kept (default 10 000). */
  maxRooms?: number;
  /** Fixed epoch (tests); default random. */
  epoch?: string;
}

export interface LiveHub {
  readonly epoch: string;
  /** Emits (to this instance's sockets) and remembers the pushes; returns them with their positions. */
  publish(pushes: readonly LivePush[]): Array<LivePush & { position: string }>;
  /** The pushes an event causes, published. */
  ingest(event: Pick<StoredEvent, 'type' | 'data' | 'position'>, source: 'ledger' | 'investment' | 'withdrawal' | 'kyc'): void;
  /** Subscribes to the bus (one group for this instance). */
  subscribe(bus: EventBus, group: string): Promise<Subscription>;
  /** The position of the newest push ('' before any). */
  head(): string;
  stop(): void;
}

export function parsePosition(value: unknown): { epoch: string; seq: number } | null {
  if (typeof value !== 'string') return null;
  const m = /^([A-Za-z0-9_-]{1,64})\.(\d{1,15})$/.exec(value);
  return m ? { epoch: m[1], seq: Number(m[2]) } : null;
}

export function createLiveHub(options: LiveHubOptions): LiveHub {
  const { io, logger } = options;
  const ringSize = Math.max(1, options.ringSize ?? 500);
  const maxRooms = Math.max(1, options.maxRooms ?? 10_000);
  const epoch = options.epoch ?? randomBytes(6).toString('base64url');
  const rings = new Map<string, Ring>();
  /** The newest seq lost with a whole room evicted (rooms not in `rings` may have lost up to here). */
  let evictedFloor = 0;
  let seq = 0;

  const ringOf = (room: string): Ring => {
    let ring = rings.get(room);
    if (ring) {
      rings.delete(room); // least recently used last
    } else {
      ring = { entries: [], floor: evictedFloor };
    }
    rings.set(room, ring);
    while (rings.size > maxRooms) {
      const [oldest, dropped] = rings.entries().next().value as [string, Ring];
      rings.delete(oldest);
      const last = dropped.entries.at(-1)?.seq ?? dropped.floor;
      evictedFloor = Math.max(evictedFloor, last);
    }
    return ring;
  };

  const emitLocal = (room: string, event: string, payload: unknown) => {
    const ids = io.of('/').adapter.rooms.get(room);
    if (!ids) return;
    for (const sid of ids) io.of('/').sockets.get(sid)?.emit(event, payload);
  };

  function publish(pushes: readonly LivePush[]) {
    const out: Array<LivePush & { position: string }> = [];
    for (const p of pushes) {
      seq += 1;
      const position = `${epoch}.${seq}`;
      const payload = { ...p.payload, position };
      const room = p.to === 'admins' ? ADMINS_ROOM : userRoom(p.to.userId);
      const ring = ringOf(room);
      ring.entries.push({ seq, event: p.event, payload });
      if (ring.entries.length > ringSize) ring.floor = ring.entries.shift()!.seq;
      emitLocal(room, p.event, payload);
      out.push({ ...p, payload, position });
    }
    return out;
  }

  /** Replays what a reconnecting socket missed, or tells it to fetch again. Runs right after it joined its rooms. */
  function catchUp(socket: Socket) {
    const raw: unknown = socket.handshake.auth?.lastPosition;
    if (raw === undefined || raw === null || raw === '') return;
    const from = parsePosition(typeof raw === 'number' ? String(raw) : raw);
    const rooms = [...socket.rooms].filter((r) => r === ADMINS_ROOM || r.startsWith('user:'));
    const exact =
      from !== null &&
      from.epoch === epoch &&
      from.seq <= seq &&
      rooms.every((r) => (rings.get(r)?.floor ?? evictedFloor) <= from.seq);
    if (!exact) {
      socket.emit(LIVE_EVENT.resync, {});
      return;
    }
    const missed: RingEntry[] = [];
    for (const r of rooms) for (const e of rings.get(r)?.entries ?? []) if (e.seq > from.seq) missed.push(e);
    missed.sort((a, b) => a.seq - b.seq);
    let last = 0;
    for (const e of missed) {
      if (e.seq === last) continue;
      last = e.seq;
      socket.emit(e.event, e.payload);
    }
  }
  // Registered after realtime.ts's own 'connection' listener, which joins the rooms synchronously.
  io.on('connection', catchUp);

  function ingest(event: Pick<StoredEvent, 'type' | 'data' | 'position'>, source: string) {
    const pushes = source === 'kyc' ? pushesForKycEvent(event).map(stripPosition) : pushesForMoneyEvent(event);
    if (pushes.length) publish(pushes);
  }

  return {
    epoch,
    publish,
    ingest,
    head: () => (seq ? `${epoch}.${seq}` : ''),
    async subscribe(bus, group) {
      const subs: Subscription[] = [];
      for (const source of ['ledger', 'investment', 'withdrawal', 'kyc'] as const) {
        subs.push(
          await bus.subscribe({
            topic: topicOf(source),
            group,
            fromBeginning: false,
            handler: async (event) => {
              try {
                ingest(event, source);
              } catch (err) {
                logger.warn({ err, type: event.type }, 'live push failed');
              }
            },
          }),
        );
      }
      return {
        stop: async () => {
          await Promise.all(subs.map((s) => s.stop()));
        },
      };
    },
    stop() {
      io.off('connection', catchUp);
    },
  };
}

/** kyc pushes (gateway/src/live.ts) carry their own `kyc:<n>` position; the hub stamps its own. */
function stripPosition(p: { to: LivePush['to']; event: string; payload: Record<string, unknown> }): LivePush {
  const { position: _ignored, ...payload } = p.payload;
  return { to: p.to, event: p.event, payload };
}
