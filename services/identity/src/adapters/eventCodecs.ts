import * as pb from '@meridian/proto/meridian/identity/v1/events';
import type { EventCodecs } from '@meridian/platform/adapters/eventBus.kafka';

/** Protobuf codecs of identity's integration events, for the Kafka bus (event type = message short name). */
export const identityEventCodecs: EventCodecs = {
  UserRegistered: pb.UserRegistered,
  EmailVerificationRequested: pb.EmailVerificationRequested,
  UserVerified: pb.UserVerified,
  LoginCodeRequested: pb.LoginCodeRequested,
  PasswordResetRequested: pb.PasswordResetRequested,
  PasswordChanged: pb.PasswordChanged,
  RoleChanged: pb.RoleChanged,
  UserDeleted: pb.UserDeleted,
  ProfileUpdated: pb.ProfileUpdated,
  ImpersonationStarted: pb.ImpersonationStarted,
  ImpersonationEnded: pb.ImpersonationEnded,
};
