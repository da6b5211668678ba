/**
 * Domain events -> the integration events of proto/meridian/support/v1/events.proto (ts-proto message
 * objects), built when the domain events are appended, in their transaction (platform
 * app/integrationEvents.ts). The source envelope is kept, so consumers de-duplicate on the support
 * service's event id. The visitor's token digest stays private, and so do the address book's events,
 * a block and an erasure (their effects are the conversation's own).
 */
import { asIs, integrationMapping, publishedEvents } from '@meridian/platform/app/integrationEvents';
import type * as pb from '@meridian/proto/meridian/support/v1/events';
import type { ConversationEvent } from '../domain/conversation.js';
import type { AddressEvent } from '../domain/addressBook.js';
import { attachmentView } from './attachments.js';

export const toIntegrationEvent = integrationMapping<ConversationEvent | AddressEvent>({
  ConversationStarted: ({ type, data: { tokenHash: _hash, ...data } }) => ({
    type,
    data: data satisfies pb.ConversationStarted,
  }),
  MessageSent: ({ data }) => ({
    type: 'SupportMessageSent',
    data: {
      party: data.party,
      message: {
        ...data.message,
        depositAddress: data.message.depositAddress ?? undefined,
        // the file's owner (whose key seals it) stays inside the service
        attachment: data.message.attachment ? attachmentView(data.message.attachment) : undefined,
      },
    } satisfies pb.SupportMessageSent,
  }),
  ConversationAssigned: asIs<pb.ConversationAssigned>(),
  ConversationClosed: asIs<pb.ConversationClosed>(),
  ConversationReopened: asIs<pb.ConversationReopened>(),
  ConversationJoined: asIs<pb.ConversationJoined>(),
  ReplyEmailRequested: ({ data }) => ({
    type: 'SupportReplyEmailRequested',
    data: data satisfies pb.SupportReplyEmailRequested,
  }),
  VisitorBlocked: null,
  ConversationErased: null,
  DepositAddressAdded: null,
  DepositAddressRetired: null,
});

/** What the service publishes (startService): this mapping, imported from this module by a relay thread. */
export const published = publishedEvents(toIntegrationEvent, import.meta.url);
