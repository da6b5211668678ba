/**
 * The live-event contract between the gateway (socket.io) and the SPA. See ./README.md.
 *
 * Each push is a socket.io event whose NAME is one of LIVE_EVENTS and whose single argument is the
 * payload below. The saga turns it into `live/eventReceived` `{ event, payload }`.
 */
export const LIVE_EVENTS = {
  queueItemAdded: 'queue/itemAdded',
  queueItemDecided: 'queue/itemDecided',
  balancesChanged: 'balances/changed',
  statusChanged: 'status/changed',
  resync: 'live/resync',
} as const;

export type QueueName = 'deposits' | 'investments' | 'withdrawals' | 'kyc';
export const QUEUE_NAMES: readonly QueueName[] = ['deposits', 'investments', 'withdrawals', 'kyc'];

/** Opaque, increasing per connection stream; echoed back on reconnect as handshake auth.lastPosition. */
export type Position = string;

/** To admins: a request entered a queue. `item` has exactly the shape of one element of that queue's GET list. */
export interface QueueItemAddedPayload {
  queue: QueueName;
  item: Record<string, unknown> & { _id?: string };
  position?: Position;
}

/** To admins: any admin decided the item; it leaves every open queue. */
export interface QueueItemDecidedPayload {
  queue: QueueName;
  id: string;
  status?: string;
  position?: Position;
}

export interface Balances {
  balance: number;
  investmentBalance: number;
  totalMaturityAmount: number;
}

/** To the user: their balances after a posting (dollars, numbers). */
export interface BalancesChangedPayload {
  userId?: string;
  balances: Partial<Balances>;
  position?: Position;
}

export type StatusKind = 'deposit' | 'investment' | 'withdrawal' | 'kyc';

/** To the owner (and admins): one item's status changed. For kind 'kyc' the id is the user's id. */
export interface StatusChangedPayload {
  kind: StatusKind;
  id: string;
  status: string;
  position?: Position;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isQueue = (v: unknown): v is QueueName => typeof v === 'string' && (QUEUE_NAMES as readonly string[]).includes(v);

export function asQueueItemAdded(payload: unknown): QueueItemAddedPayload | null {
  return isObject(payload) && isQueue(payload.queue) && isObject(payload.item) ? (payload as unknown as QueueItemAddedPayload) : null;
}

export function asQueueItemDecided(payload: unknown): QueueItemDecidedPayload | null {
  return isObject(payload) && isQueue(payload.queue) && typeof payload.id === 'string' ? (payload as unknown as QueueItemDecidedPayload) : null;
}

export function asBalancesChanged(payload: unknown): BalancesChangedPayload | null {
  return isObject(payload) && isObject(payload.balances) ? (payload as unknown as BalancesChangedPayload) : null;
}

export function asStatusChanged(payload: unknown): StatusChangedPayload | null {
  return isObject(payload) && typeof payload.kind === 'string' && typeof payload.id === 'string' && typeof payload.status === 'string'
    ? (payload as unknown as StatusChangedPayload)
    : null;
}

export function positionOf(payload: unknown): Position | null {
  return isObject(payload) && (typeof payload.position === 'string' || typeof payload.position === 'number') ? String(payload.position) : null;
}
