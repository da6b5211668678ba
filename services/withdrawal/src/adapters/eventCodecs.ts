import * as identityEvents from '@meridian/proto/meridian/identity/v1/events';
import * as pb from '@meridian/proto/meridian/withdrawal/v1/events';
import type { EventCodecs } from '@meridian/platform/adapters/eventEnvelope';

/** Protobuf codecs of the withdrawal service's integration events, for the Kafka bus. */
export const withdrawalEventCodecs: EventCodecs = {
  WithdrawalRequested: pb.WithdrawalRequested,
  WithdrawalApproved: pb.WithdrawalApproved,
  WithdrawalRejected: pb.WithdrawalRejected,
};

/** Everything the service's bus must encode or decode: its own events and identity's it consumes. */
export const withdrawalRuntimeCodecs: EventCodecs = {
  ...withdrawalEventCodecs,
  UserRegistered: identityEvents.UserRegistered,
  ProfileUpdated: identityEvents.ProfileUpdated,
  UserDeleted: identityEvents.UserDeleted,
};
