import * as identityEvents from '@meridian/proto/meridian/identity/v1/events';
import * as pb from '@meridian/proto/meridian/investment/v1/events';
import type { EventCodecs } from '@meridian/platform/adapters/eventEnvelope';

/** Protobuf codecs of the investment service's integration events, for the Kafka bus. */
export const investmentEventCodecs: EventCodecs = {
  InvestmentRequested: pb.InvestmentRequested,
  InvestmentApproved: pb.InvestmentApproved,
  InvestmentRejected: pb.InvestmentRejected,
  InvestmentMatured: pb.InvestmentMatured,
};

/** Everything the service's bus must encode or decode: its own events and identity's it consumes. */
export const investmentRuntimeCodecs: EventCodecs = {
  ...investmentEventCodecs,
  UserRegistered: identityEvents.UserRegistered,
  ProfileUpdated: identityEvents.ProfileUpdated,
  UserDeleted: identityEvents.UserDeleted,
};
