/**
 * Identity's integration events are its user's domain events (domain/user.ts: the messages of
 * proto/meridian/identity/v1/events.proto, secrets only sealed): each one appended goes out as it is on
 * meridian.identity.events, recorded when appended like every service's (platform app/integrationEvents.ts),
 * and so do its other facts (ClaimTakenOver), except sign-ins (UserSignedIn), which only identity reads.
 * The source envelope is kept, so consumers de-duplicate on identity's event id.
 */
import { type IntegrationMapping, publishedEvents } from '@meridian/platform/app/integrationEvents';
import type { DomainEvent } from '@meridian/platform/eventSourcing/types';
import { USER_SIGNED_IN } from '../projections/audit.js';

const outgoing = (event: DomainEvent): DomainEvent | null =>
  // a sign-in stays identity's own: its security event is written with it (projections/audit.ts projectSignIns)
  event.type === USER_SIGNED_IN
    ? null
    : {
        type: event.type,
        // the email's blind index is identity's own lookup key: never on the bus
        data:
          event.type === 'UserRegistered' && event.data && typeof event.data === 'object'
            ? { ...(event.data as object), emailIndex: '' }
            : event.data,
      };

/** Reads nothing, so it is known at the append (`atAppend`): recorded as the event is inserted. */
export const toIntegrationEvent: IntegrationMapping = Object.assign((event: DomainEvent) => outgoing(event), {
  atAppend: outgoing,
});

/** What the service publishes (startService): this mapping, imported from this module by a relay thread. */
export const published = publishedEvents(toIntegrationEvent, import.meta.url);
