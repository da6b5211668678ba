import {
  ConcurrencyError,
  DomainError,
  forbidden,
  invalid,
  unauthenticated,
} from '@meridian/platform/eventSourcing/errors';
import { type EventMeta, type StoredEvent, foldEvents } from '@meridian/platform/eventSourcing/types';
import { currentCorrelationId, type Logger } from '@meridian/platform/logger';
import type { ServiceStore, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  type WithdrawalCommand,
  type WithdrawalEvent,
  type WithdrawalState,
  withdrawalDecider,
  toWithdrawalStreamId,
} from '../domain/withdrawal.js';
import { COLLECTIONS, type WithdrawalDoc, projectWithdrawal } from '../projections/withdrawalView.js';
import type { LedgerPort } from './ports.js';

export const SERVICE = 'withdrawal';
/** Consumer group of the withdrawal service on other services' topics (also its processed-markers set). */
export const CONSUMER_GROUP = 'withdrawal';

export interface WithdrawalContext {
  store: ServiceStore;
  ledger: LedgerPort;
  clock: () => Date;
  newId: () => string;
  logger: Logger;
  /** Attempts of read -> decide -> append when another writer moved the stream first (default 5). */
  maxAttempts?: number;
}

/**
 * Who is calling, as the gateway established it: user id from the session, role from identity's
 * Authenticate. The service does not own users: it trusts these fields from its callers inside the
 * cluster (never from a browser) and re-checks every power against them.
 */
export interface Actor {
  userId: string;
  role: string;
  impersonatorId?: string;
}

export const MESSAGES = {
  notAuthenticated: 'Not authenticated',
  adminOnly: 'Not authorized, admin only',
  notYours: 'Not authorized',
  badId: 'Id must be 1-100 letters, digits or . _ : -',
  pendingOutcome:
    'Your request is recorded but its funds could not be confirmed yet; it will be completed shortly',
} as const;

export function requireActor(actor: Actor | null | undefined): Actor {
  if (!actor?.userId) throw unauthenticated(MESSAGES.notAuthenticated);
  return actor;
}

export function requireAdmin(actor: Actor | null | undefined): Actor {
  const a = requireActor(actor);
  if (a.role !== 'admin') throw forbidden(MESSAGES.adminOnly);
  return a;
}

export function requireOwnerOrAdmin(actor: Actor | null | undefined, userId: string): Actor {
  const a = requireActor(actor);
  if (a.role !== 'admin' && a.userId !== userId) throw forbidden(MESSAGES.notYours);
  return a;
}

const ID = /^[A-Za-z0-9_.:-]{1,100}$/;
export function checkId(id: string): string {
  if (!ID.test(id)) throw invalid(MESSAGES.badId);
  return id;
}

export function metaOf(ctx: WithdrawalContext, actor?: Actor): EventMeta {
  return {
    correlationId: currentCorrelationId() ?? ctx.newId(),
    ...(actor
      ? {
          actor: {
            userId: actor.userId,
            role: actor.role,
            ...(actor.impersonatorId ? { impersonatorId: actor.impersonatorId } : {}),
          },
        }
      : {}),
  };
}

/** A ledger answer whose outcome is unknown (down, deadline, transport): retry later, decide nothing. */
export const isUnknownOutcome = (err: unknown) => !(err instanceof DomainError) || err.kind === 'unavailable';

export async function inTransaction<T>(ctx: WithdrawalContext, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
  const max = ctx.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.store.transaction(fn);
    } catch (err) {
      if (err instanceof ConcurrencyError && attempt < max) continue;
      throw err;
    }
  }
}

/**
 * read -> decide -> append -> project, in one transaction (retried on a concurrent append). The
 * command is built from the current state (so it can carry what it read).
 */
export async function executeWithdrawal(
  ctx: WithdrawalContext,
  withdrawalId: string,
  command: (state: WithdrawalState) => WithdrawalCommand,
  meta: EventMeta,
): Promise<{ events: WithdrawalEvent[]; doc: WithdrawalDoc | null }> {
  return inTransaction(ctx, async (tx) => {
    const streamId = toWithdrawalStreamId(withdrawalId);
    const { version, events: stored } = await tx.readStream<WithdrawalEvent>(streamId);
    const state = foldEvents(
      withdrawalDecider,
      stored.map((e) => ({ type: e.type, data: e.data }) as WithdrawalEvent),
    );
    const events = withdrawalDecider.decide(command(state), state);
    let doc = await tx.get<WithdrawalDoc>(COLLECTIONS.withdrawals, withdrawalId);
    if (events.length === 0) return { events, doc };
    const { events: appended } = await tx.appendToStream(streamId, version, events, meta);
    for (const e of appended) doc = projectWithdrawal(doc, e as StoredEvent<WithdrawalEvent>);
    if (doc) await tx.put(COLLECTIONS.withdrawals, withdrawalId, doc);
    return { events, doc };
  });
}
