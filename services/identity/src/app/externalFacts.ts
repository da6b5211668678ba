import { subscribeIdempotent } from '@meridian/platform/app/consumer';
import type { EventBus, Subscription } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { EXTERNAL_TOPICS, projectExternalFact } from '../projections/externalFacts.js';
import { USERS, type UserView } from '../projections/userView.js';

/**
 * HOOK for the KYC and ledger services (not started by main.ts until their contracts exist):
 * keeps kycStatus and balances on the user view, idempotently (processed markers in the same tx).
 */
export async function subscribeExternalFacts(deps: { bus: EventBus; store: ServiceStore }): Promise<Subscription[]> {
  const subs: Subscription[] = [];
  for (const topic of EXTERNAL_TOPICS) {
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
