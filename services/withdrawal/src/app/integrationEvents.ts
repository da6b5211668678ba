/**
 * Domain events -> the integration events of proto/meridian/withdrawal/v1/events.proto (ts-proto
 * message objects, camelCase, cents), built when the domain events are appended, in their transaction
 * (platform app/integrationEvents.ts). The source envelope is kept, so consumers de-duplicate on the
 * withdrawal service's event id.
 *
 * The request enters the admin queue when the ledger holds its funds: the domain HoldPlaced goes out
 * as the integration WithdrawalRequested, with the terms of the stream's first event (the private
 * WithdrawalSubmitted; WithdrawalRequested before its rename) and the user's name and email as the
 * directory knew them then. HoldRefused and the ledger's confirmations (HoldCaptured, HoldReleased: the
 * process manager's bookkeeping) stay private too.
 */
import { withUser } from '@meridian/held-request/app/userDirectory';
import { PRIVATE_HOLD_EVENTS } from '@meridian/held-request/domain/lifecycle';
import {
  asIs,
  fromOpeningEvent,
  integrationMapping,
  publishedEvents,
} from '@meridian/platform/app/integrationEvents';
import type * as pb from '@meridian/proto/meridian/withdrawal/v1/events';
import type { WithdrawalEvent, WithdrawalSubmitted } from '../domain/withdrawal.js';

export const toIntegrationEvent = integrationMapping<WithdrawalEvent>({
  // the terms without the wallet address's keyed hash (the service's own: compares retries)
  HoldPlaced: fromOpeningEvent<WithdrawalSubmitted, pb.WithdrawalRequested>(
    'WithdrawalRequested',
    (reads, { walletAddressHash: _hash, ...terms }) => withUser(reads, terms),
  ),
  WithdrawalApproved: asIs<pb.WithdrawalApproved>(),
  WithdrawalRejected: asIs<pb.WithdrawalRejected>(),
  WithdrawalSubmitted: null,
  ...PRIVATE_HOLD_EVENTS,
});

/** What the service publishes (startService): this mapping, imported from this module by a relay thread. */
export const published = publishedEvents(toIntegrationEvent, import.meta.url);
