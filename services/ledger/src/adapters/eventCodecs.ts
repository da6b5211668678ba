import * as identityEvents from '@meridian/proto/meridian/identity/v1/events';
import * as pb from '@meridian/proto/meridian/ledger/v1/events';
import type { EventCodecs } from '@meridian/platform/adapters/eventEnvelope';

/** Protobuf codecs of the ledger's integration events, for the Kafka bus (event type = message short name). */
export const ledgerEventCodecs: EventCodecs = {
  DepositRequested: pb.DepositRequested,
  DepositConfirmed: pb.DepositConfirmed,
  DepositRejected: pb.DepositRejected,
  FundsHeld: pb.FundsHeld,
  FundsCaptured: pb.FundsCaptured,
  FundsReleased: pb.FundsReleased,
  TransactionPosted: pb.TransactionPosted,
  BalancesChanged: pb.BalancesChanged,
  ReferralBonusPaid: pb.ReferralBonusPaid,
};

/** Everything the ledger's bus must encode or decode: its own events and identity's it consumes. */
export const ledgerRuntimeCodecs: EventCodecs = {
  ...ledgerEventCodecs,
  UserRegistered: identityEvents.UserRegistered,
  ProfileUpdated: identityEvents.ProfileUpdated,
};
