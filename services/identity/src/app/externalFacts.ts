import { subscribeIdempotent } from '@meridian/platform/app/consumer';
import type { EventBus, Subscription } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { projectExternalFact, WIRED_EXTERNAL_TOPICS } from '../projections/externalFacts.js';
import { USERS, type UserView } from '../projections/userView.js';

/**
 * Keeps facts other services own on the user view (kycStatus and the document links today; balances
 * once the ledger's contract lands), idempotently: the processed marker commits with the view update,
 * so a redelivered event has no second effect. Group 'identity' on each topic.
 */
export async function subscribeExternalFacts(deps: {
  bus: EventBus;
  store: ServiceStore;
  topics?: readonly string[];
}): Promise<Subscription[]> {
  const subs: Subscription[] = [];
  for (const topic of deps.topics ?? WIRED_EXTERNAL_TOPICS) {
    subs.push(
      await subscribeIdempotent({
        bus: deps.bus,
        store: deps.store,
        topic,
        group: 'identity',
        handle: async (event, tx) => {
          const userId = (event.data as { userId?: unknown }).userId;
          if (typeof userId !== 'string') return;
          const before = await tx.get<UserView>(USERS, userId);
          const after = projectExternalFact(before, event);
          if (after && after !== before) await tx.put(USERS, userId, after);
        },
      }),
    );
  }
  return subs;
}
