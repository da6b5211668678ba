/**
 * The live log: the pushes of every gateway instance in ONE numbering, so a position means the same on
 * every instance (web/src/features/live/README.md, "Catching up").
 *
 * - A position is `<epoch>.<seq>`: `seq` is one global counter (every push of every room takes the next
 *   number), `epoch` names the log's lifetime (a new one when the log starts empty: a fresh Redis, a
 *   restarted memory log), so a position of a previous life is never mistaken for one of this life.
 * - `append` logs the pushes one event causes, atomically and at most once per event id (a redelivered
 *   event pushes nothing more), and fans the batch out to every instance (`onBatch`), in seq order.
 * - Each room (`user:<id>`, `admins`) keeps its last `ringSize` pushes; at most `maxRooms` rooms are
 *   kept (the one pushed to least recently is dropped first). `read` returns a room set's pushes after a
 *   position, merged by seq, or `resync` when that cannot be exact (another epoch, a position from the
 *   future, pushes after it already dropped).
 *
 * Adapters: liveLog.redis.ts (every multi-instance deployment: REDIS_URL) and liveLog.memory.ts (one
 * instance without Redis). One conformance suite: liveLog.conformance.ts.
 */

/** A push addressed to a room, before it is logged. `payload` never carries `position` (the log adds it). */
export interface RoomPush {
  room: string;
  event: string;
  payload: Record<string, unknown>;
}

export interface LoggedPush extends RoomPush {
  seq: number;
}

/** What one append logged: consecutive seqs `first`…`first + pushes.length - 1` of `epoch`. */
export interface LiveBatch {
  epoch: string;
  pushes: LoggedPush[];
}

export type Replay =
  { kind: 'pushes'; epoch: string; head: number; pushes: LoggedPush[] } | { kind: 'resync' };

export interface FanOutListener {
  /** Every batch any instance appended, in seq order (Redis: through pub/sub, so one may be lost on a reconnect). */
  batch(batch: LiveBatch): void;
  /** Batches may have been lost (the fan-out connection dropped): re-read what matters. */
  lost(): void;
}

export interface LiveLog {
  /**
   * Logs `pushes` with consecutive seqs and fans them out; null when `eventId` was logged before (the
   * redelivery of an event) or there is nothing to log. `eventId` null: no de-duplication.
   */
  append(eventId: string | null, pushes: readonly RoomPush[]): Promise<LiveBatch | null>;
  /** The pushes of `rooms` after `after`, in seq order, or resync when that cannot be exact. */
  read(rooms: readonly string[], after: { epoch: string; seq: number }): Promise<Replay>;
  /** The current epoch and the last seq given out (0 before any). */
  head(): Promise<{ epoch: string; seq: number }>;
  /** Registers the fan-out listener (one per log: the hub). */
  onFanOut(listener: FanOutListener): void;
  close(): Promise<void>;
}

export interface LiveLogOptions {
  /** Pushes kept per room (default 500). */
  ringSize?: number;
  /** Rooms kept (default 10 000). */
  maxRooms?: number;
  /** How long an event id is remembered to drop its redelivery (default 24 h). */
  seenTtlMs?: number;
}

export const LIVE_LOG_DEFAULTS = { ringSize: 500, maxRooms: 10_000, seenTtlMs: 24 * 60 * 60_000 } as const;

export function formatPosition(epoch: string, seq: number): string {
  return `${epoch}.${seq}`;
}

/** `<epoch>.<seq>` → its parts; null when malformed. */
export function parsePosition(value: unknown): { epoch: string; seq: number } | null {
  if (typeof value !== 'string') return null;
  const m = /^([A-Za-z0-9_-]{1,64})\.(\d{1,15})$/.exec(value);
  return m ? { epoch: m[1], seq: Number(m[2]) } : null;
}
