/**
 * Domain events -> the integration events of proto/meridian/notification/v1/events.proto, built when
 * the domain events are appended, in their transaction (platform app/integrationEvents.ts): what became
 * of an email (EmailSent, EmailFailed) goes out as it is; EmailQueued stays private. The source envelope
 * is kept, so consumers de-duplicate on the notification service's event id.
 */
import { asIs, integrationMapping, publishedEvents } from '@meridian/platform/app/integrationEvents';
import type * as pb from '@meridian/proto/meridian/notification/v1/events';
import type { EmailOutcomeEvent } from '../domain/email.js';
import type { EmailQueued } from './queueEmail.js';

export const toIntegrationEvent = integrationMapping<EmailOutcomeEvent | EmailQueued>({
  EmailSent: asIs<pb.EmailSent>(),
  EmailFailed: asIs<pb.EmailFailed>(),
  EmailQueued: null,
});

/** What the service publishes (startService): this mapping, imported from this module by a relay thread. */
export const published = publishedEvents(toIntegrationEvent, import.meta.url);
