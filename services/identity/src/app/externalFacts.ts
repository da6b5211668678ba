import { subscribeIdempotentToTopics, type TopicsDeps } from '@meridian/platform/app/consumer';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { Subscription } from '@meridian/platform/ports/eventBus';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import { projectExternalFact, WIRED_EXTERNAL_TOPICS } from '../projections/externalFacts.js';
import { USERS, type UserView } from '../projections/userView.js';

/** The event types projectExternalFact acts on (the consumer skips the others without a transaction). */
export const EXTERNAL_FACT_TYPES = ['KycSubmitted', 'KycApproved', 'KycRejected', 'BalancesChanged'] as const;

/** Applies one event of another service to the user view it concerns, inside tx. */
export async function applyExternalFact(event: StoredEvent, tx: StoreTx): Promise<void> {
  const userId = (event.data as { userId?: unknown }).userId;
  if (typeof userId !== 'string') return;
  const before = await tx.get<UserView>(USERS, userId);
  const after = projectExternalFact(before, event);
  if (after && after !== before) await tx.put(USERS, userId, after);
}

/**
 * Keeps facts other services own on the user view (kycStatus, the document links, balances),
 * idempotently: the processed marker commits with the view update, so a redelivered event has no
 * second effect. Group 'identity' on each topic.
 */
export function subscribeExternalFacts(deps: TopicsDeps): Promise<Subscription[]> {
  return subscribeIdempotentToTopics({
    bus: deps.bus,
    store: deps.store,
    topics: deps.topics ?? WIRED_EXTERNAL_TOPICS,
    group: 'identity',
    handleOf: () => applyExternalFact,
    types: EXTERNAL_FACT_TYPES,
  });
}
