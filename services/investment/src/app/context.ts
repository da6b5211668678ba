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
  type InvestmentCommand,
  type InvestmentEvent,
  type InvestmentState,
  investmentDecider,
  toInvestmentStreamId,
} from '../domain/investment.js';
import type { Plan } from '../domain/plan.js';
import { COLLECTIONS, type InvestmentDoc, projectInvestment } from '../projections/investmentView.js';
import type { LedgerPort } from './ports.js';

export const SERVICE = 'investment';
/** Consumer group of the investment service on other services' topics (also its processed-markers set). */
export const CONSUMER_GROUP = 'investment';

export interface InvestmentContext {
  store: ServiceStore;
  ledger: LedgerPort;
  plans: readonly Plan[];
  clock: () => Date;
  newId: () => string;
  logger: Logger;
  /** Called after an approval or a maturity: the scheduler re-arms its timer. */
  onScheduleChanged?: () => void;
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

export function metaOf(ctx: InvestmentContext, actor?: Actor): EventMeta {
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

export async function inTransaction<T>(ctx: InvestmentContext, fn: (tx: StoreTx) => Promise<T>): Promise<T> {
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
export async function executeInvestment(
  ctx: InvestmentContext,
  investmentId: string,
  command: (state: InvestmentState) => InvestmentCommand,
  meta: EventMeta,
): Promise<{ events: InvestmentEvent[]; doc: InvestmentDoc | null }> {
  return inTransaction(ctx, async (tx) => {
    const streamId = toInvestmentStreamId(investmentId);
    const { version, events: stored } = await tx.readStream<InvestmentEvent>(streamId);
    const state = foldEvents(
      investmentDecider,
      stored.map((e) => ({ type: e.type, data: e.data }) as InvestmentEvent),
    );
    const events = investmentDecider.decide(command(state), state);
    let doc = await tx.get<InvestmentDoc>(COLLECTIONS.investments, investmentId);
    if (events.length === 0) return { events, doc };
    const { events: appended } = await tx.appendToStream(streamId, version, events, meta);
    for (const e of appended) doc = projectInvestment(doc, e as StoredEvent<InvestmentEvent>);
    if (doc) await tx.put(COLLECTIONS.investments, investmentId, doc);
    return { events, doc };
  });
}
