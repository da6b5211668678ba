/**
 * Domain events -> the integration events of proto/meridian/investment/v1/events.proto (ts-proto
 * message objects, camelCase, cents), built when the domain events are appended, in their transaction
 * (platform app/integrationEvents.ts). The source envelope (id, stream, version) is kept, so consumers
 * de-duplicate on the investment service's event id.
 *
 * The request enters the admin queue when the ledger holds its funds: the domain HoldPlaced goes out
 * as the integration InvestmentRequested, with the terms of the stream's first event (the private
 * InvestmentSubmitted; InvestmentRequested before its rename) and the user's name and email as the
 * directory knew them then. HoldRefused (the investor got the refusal as the answer) and the ledger's
 * confirmations (HoldCaptured, HoldReleased, MaturitySettled: the process manager's bookkeeping) stay
 * private too.
 */
import { withUser } from '@meridian/held-request/app/userDirectory';
import { PRIVATE_HOLD_EVENTS } from '@meridian/held-request/domain/lifecycle';
import {
  asIs,
  fromOpeningEvent,
  integrationMapping,
  publishedEvents,
} from '@meridian/platform/app/integrationEvents';
import type * as pb from '@meridian/proto/meridian/investment/v1/events';
import type { InvestmentEvent, InvestmentSubmitted } from '../domain/investment.js';

export const toIntegrationEvent = integrationMapping<InvestmentEvent>({
  HoldPlaced: fromOpeningEvent<InvestmentSubmitted, pb.InvestmentRequested>('InvestmentRequested', withUser),
  InvestmentApproved: asIs<pb.InvestmentApproved>(),
  InvestmentRejected: asIs<pb.InvestmentRejected>(),
  InvestmentMatured: asIs<pb.InvestmentMatured>(),
  InvestmentSubmitted: null,
  ...PRIVATE_HOLD_EVENTS,
  MaturitySettled: null,
});

/** What the service publishes (startService): this mapping, imported from this module by a relay thread. */
export const published = publishedEvents(toIntegrationEvent, import.meta.url);
