/**
 * The live-event contract between the gateway (socket.io) and the SPA. See ./README.md.
 *
 * The names and payload types are ./pushContract.ts, the gateway's own file copied byte for byte
 * (gateway/src/live/pushContract.ts; a gateway test fails when the copies differ). Here: the guards
 * that check a received payload. The saga turns each push into `live/eventReceived` `{ event, payload }`.
 */
import {
  QUEUE_NAMES,
  type BalancesChangedPayload,
  type Position,
  type QueueItemAddedPayload,
  type QueueItemDecidedPayload,
  type QueueName,
  type StatusChangedPayload,
} from './pushContract';

export {
  LIVE_EVENTS,
  QUEUE_NAMES,
  type Balances,
  type BalancesChangedPayload,
  type LiveEventName,
  type Position,
  type QueueItemAddedPayload,
  type QueueItemDecidedPayload,
  type QueueName,
  type StatusChangedPayload,
  type StatusKind,
} from './pushContract';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isQueue = (v: unknown): v is QueueName =>
  typeof v === 'string' && (QUEUE_NAMES as readonly string[]).includes(v);

export function asQueueItemAdded(payload: unknown): QueueItemAddedPayload | null {
  return isObject(payload) && isQueue(payload.queue) && isObject(payload.item)
    ? (payload as unknown as QueueItemAddedPayload)
    : null;
}

export function asQueueItemDecided(payload: unknown): QueueItemDecidedPayload | null {
  return isObject(payload) && isQueue(payload.queue) && typeof payload.id === 'string'
    ? (payload as unknown as QueueItemDecidedPayload)
    : null;
}

export function asBalancesChanged(payload: unknown): BalancesChangedPayload | null {
  return isObject(payload) && isObject(payload.balances)
    ? (payload as unknown as BalancesChangedPayload)
    : null;
}

export function asStatusChanged(payload: unknown): StatusChangedPayload | null {
  return isObject(payload) &&
    typeof payload.kind === 'string' &&
    typeof payload.id === 'string' &&
    typeof payload.status === 'string'
    ? (payload as unknown as StatusChangedPayload)
    : null;
}

export function positionOf(payload: unknown): Position | null {
  return isObject(payload) && (typeof payload.position === 'string' || typeof payload.position === 'number')
    ? String(payload.position)
    : null;
}
