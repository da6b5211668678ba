/**
 * The live-push contract between the gateway (socket.io) and the SPA: web/src/features/live/README.md.
 *
 * ONE definition: the SPA reads this file through the `#push-contract` alias (web/tsconfig.json paths,
 * resolve.alias in web/vite.config.ts and web/vitest.config.ts), re-exported by
 * web/src/features/live/pushContract.ts; the SPA's image copies this one file beside web/
 * (infra/docker/web.Dockerfile). No imports, so the file means the same on both sides.
 *
 * Each push is a socket.io event whose NAME is one of LIVE_EVENTS and whose single argument is the
 * payload below.
 */
export const LIVE_EVENTS = {
  queueItemAdded: 'queue/itemAdded',
  queueItemDecided: 'queue/itemDecided',
  balancesChanged: 'balances/changed',
  statusChanged: 'status/changed',
  resync: 'live/resync',
  claimChanged: 'claims/changed',
  supportMessage: 'support/message',
  supportConversation: 'support/conversation',
  supportTyping: 'support/typing',
} as const;

export type LiveEventName = (typeof LIVE_EVENTS)[keyof typeof LIVE_EVENTS];

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

/** 'support': a support conversation (its claim; no status/changed push names it). */
export type StatusKind = 'deposit' | 'investment' | 'withdrawal' | 'kyc' | 'support';

/** To the owner (and admins): one item's status changed. For kind 'kyc' the id is the user's id. */
export interface StatusChangedPayload {
  kind: StatusKind;
  id: string;
  status: string;
  position?: Position;
}

/** Who reviews a pending item of an admin queue now (gateway/src/live/claims.ts). */
export interface ReviewClaim {
  kind: StatusKind;
  id: string;
  adminId: string;
  adminName: string;
  claimedAt: string;
  /** Milliseconds the claim has left when sent, unless renewed (the client counts down from receipt). */
  expiresInMs: number;
  /** Claimed (by opening the item, or by a decision on an unheld item) and taken over, oldest first. */
  history: Array<{
    action: 'claimed' | 'takenOver';
    adminId: string;
    adminName: string;
    fromAdminId?: string;
    fromAdminName?: string;
    /** Claimed by deciding it while nobody held it (the decision call itself took the claim). */
    byDecision?: boolean;
    at: string;
  }>;
}

/** One message of a support conversation (an element of GET api/support/conversations/{id}'s messages). */
export interface SupportMessagePush {
  _id: string;
  conversationId: string;
  from: 'investor' | 'support' | 'system';
  text: string;
  createdAt: string;
  internal: boolean;
  authorId: string;
  depositAddress: { addressId: string; network: string; address: string; label: string } | null;
}

/** To support admins, and to the conversation's investor (never an internal note): a message was sent. */
export interface SupportMessagePayload {
  conversationId: string;
  message: SupportMessagePush;
  position?: Position;
}

/** To support admins: a conversation started, was assigned, closed, reopened or joined an account. */
export interface SupportConversationPayload {
  conversationId: string;
  /** `_id` and the fields that changed (status, assigneeId, userId, name, email, startedAt). */
  conversation: Record<string, unknown> & { _id: string };
  position?: Position;
}

/**
 * Support is typing a reply (`typing`) or stopped: sent by an admin's socket `{ conversationId, typing }`, given
 * to the conversation's investor as below. Not logged, so no position.
 */
export interface SupportTypingPayload {
  conversationId: string;
  from: 'support';
  typing: boolean;
}

/**
 * To admins: an item was claimed, renewed, taken over (`claim` is the new one) or released (`claim` null).
 * Not logged, so no position: a (re)connected client fetches GET api/admin/claims instead.
 */
export interface ClaimChangedPayload {
  kind: StatusKind;
  id: string;
  claim: ReviewClaim | null;
}
