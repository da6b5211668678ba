/**
 * Domain events -> the integration events of proto/meridian/kyc/v1/events.proto (ts-proto message
 * objects), built when the domain events are appended, in their transaction (platform
 * app/integrationEvents.ts). A submission goes out without the document references (the gateway links
 * stand for them); KycCaseErased stays private. The source envelope is kept, so consumers de-duplicate
 * on the kyc service's event id.
 */
import { asIs, integrationMapping, publishedEvents } from '@meridian/platform/app/integrationEvents';
import type * as pb from '@meridian/proto/meridian/kyc/v1/events';
import type { KycEvent } from '../domain/kycCase.js';

export const toIntegrationEvent = integrationMapping<KycEvent>({
  KycSubmitted: ({ type, data: { front: _front, back: _back, ...data } }) => ({
    type,
    data: data satisfies pb.KycSubmitted,
  }),
  KycApproved: asIs<pb.KycApproved>(),
  KycRejected: asIs<pb.KycRejected>(),
  KycCaseErased: null,
});

/** What the service publishes (startService): this mapping, imported from this module by a relay thread. */
export const published = publishedEvents(toIntegrationEvent, import.meta.url);
