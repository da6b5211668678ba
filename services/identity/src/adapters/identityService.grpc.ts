/**
 * The IdentityService gRPC surface: proto request -> use case -> proto response. DomainErrors become
 * statuses through the platform's unaryHandler (message as details).
 */
import { forbidden } from '@meridian/platform/eventSourcing/errors';
import { unaryHandlers, type CallContext } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import type * as pbEvents from '@meridian/proto/meridian/identity/v1/events';
import type * as pb from '@meridian/proto/meridian/identity/v1/identity';
import type { IdentityServiceServer } from '@meridian/proto/meridian/identity/v1/identity';
import type { UserEvent } from '../domain/user.js';
import type { ReferralView, UserView } from '../projections/userView.js';
import { openUserView, type CallerInput, type IdentityContext } from '../app/context.js';
import { authenticate, type AuthResult } from '../app/sessions.js';
import { createPersonalDataKeysHandler, presentsServiceToken } from './personalDataKeys.grpc.js';
import { register } from '../app/register.js';
import { externalLogin, googleLogin, login, loginWithCode, logout, sendLoginCode } from '../app/signIn.js';
import { getUser, listReferrals, updateUser, type UserResult } from '../app/profile.js';
import { sendVerificationEmail, verifyUser } from '../app/verification.js';
import { changePassword, forgotPassword, resetPassword } from '../app/passwords.js';
import { deleteUser, listUsersPage, upgradeUser, userStats } from '../app/admin.js';
import { exitImpersonation, impersonate } from '../app/impersonation.js';
import { listCountries } from '../app/countries.js';

export function toProtoUser(view: UserView, isImpersonated = false): pb.User {
  return {
    id: view.id,
    name: view.name,
    email: view.email,
    phone: view.phone,
    country: view.country,
    bio: view.bio,
    photo: view.photo,
    role: view.role,
    isVerified: view.isVerified,
    kycStatus: view.kycStatus,
    balanceCents: view.balanceCents,
    investmentBalanceCents: view.investmentBalanceCents,
    totalMaturityAmountCents: view.totalMaturityAmountCents,
    referralCode: view.referralCode,
    isImpersonated,
    kycFrontDoc: view.kycFrontDoc,
    kycBackDoc: view.kycBackDoc,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
}

const toAuthResponse = (r: AuthResult): pb.AuthResponse => ({
  user: toProtoUser(r.user, r.isImpersonated),
  sessionToken: r.sessionToken,
  deviceToken: r.deviceToken,
  message: r.message,
});

const toReferral = (r: ReferralView): pb.Referral => ({
  id: r.id,
  name: r.name,
  email: r.email,
  photo: r.photo,
  createdAt: r.createdAt,
});

/** The caller a gateway passed, as the use cases take it (the call's correlation id when it has none). */
export function callerOf(caller: Caller | undefined, call: CallContext): CallerInput | undefined {
  if (!caller) return undefined;
  return {
    userId: caller.userId,
    sessionId: caller.sessionId,
    impersonatorId: caller.impersonatorId || undefined,
    correlationId: caller.correlationId || call.correlationId,
    ...(caller.address ? { address: caller.address } : {}),
  };
}

/** The request as a use case takes it (its fields are the use case's input), with the call's correlation id when it has none. */
const correlated = <R extends { correlationId: string }>(req: R, call: CallContext): R => ({
  ...req,
  correlationId: req.correlationId || call.correlationId,
});

const message = (text: string) => ({ message: text });
const toUserResponse = (r: UserResult): pb.User => toProtoUser(r.user, r.isImpersonated);

/** Compile-time check: the domain's event data are exactly the proto integration events. */
type DataOf<T extends UserEvent['type']> = Extract<UserEvent, { type: T }>['data'];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _eventsMatchProto: [
  Same<DataOf<'UserRegistered'>, pbEvents.UserRegistered>,
  Same<DataOf<'EmailVerificationRequested'>, pbEvents.EmailVerificationRequested>,
  Same<DataOf<'UserVerified'>, pbEvents.UserVerified>,
  Same<DataOf<'LoginCodeRequested'>, pbEvents.LoginCodeRequested>,
  Same<DataOf<'PasswordResetRequested'>, pbEvents.PasswordResetRequested>,
  Same<Omit<DataOf<'PasswordChanged'>, 'via'> & { via: string }, pbEvents.PasswordChanged>,
  Same<DataOf<'RoleChanged'>, pbEvents.RoleChanged>,
  Same<DataOf<'UserDeleted'>, pbEvents.UserDeleted>,
  Same<DataOf<'ProfileUpdated'>, pbEvents.ProfileUpdated>,
  Same<DataOf<'ImpersonationStarted'>, pbEvents.ImpersonationStarted>,
  Same<DataOf<'ImpersonationEnded'>, pbEvents.ImpersonationEnded>,
] = [true, true, true, true, true, true, true, true, true, true, true];
void _eventsMatchProto;

/**
 * `serviceToken`: the INTERNAL_SERVICE_TOKEN the other services present to GetPersonalDataKeys, and the gateway
 * to ExternalLogin (undefined: nobody may fetch keys or sign in through a provider).
 */
export function createIdentityGrpcService(
  ctx: IdentityContext,
  logger: Logger,
  serviceToken?: string,
): IdentityServiceServer {
  const handlers = unaryHandlers(
    {
      register: async (req: pb.RegisterRequest, call: CallContext) =>
        toAuthResponse(await register(ctx, correlated(req, call))),
      login: async (req: pb.LoginRequest) => toAuthResponse(await login(ctx, req)),
      sendLoginCode: async (req: pb.SendLoginCodeRequest, call: CallContext) =>
        message(await sendLoginCode(ctx, correlated(req, call))),
      loginWithCode: async (req: pb.LoginWithCodeRequest) => toAuthResponse(await loginWithCode(ctx, req)),
      googleLogin: async (req: pb.GoogleLoginRequest, call: CallContext) =>
        toAuthResponse(await googleLogin(ctx, correlated(req, call))),
      // claims the caller vouches for: only the gateway, which checked them, may send them
      externalLogin: async (req: pb.ExternalLoginRequest, call: CallContext) => {
        if (!presentsServiceToken(call.metadata, serviceToken)) throw forbidden('Not authorized');
        return toAuthResponse(await externalLogin(ctx, correlated(req, call)));
      },
      authenticate: async (req: pb.AuthenticateRequest): Promise<pb.Principal> => {
        const { view, ...principal } = await authenticate(ctx, req.sessionToken);
        return { ...principal, user: toProtoUser(await openUserView(ctx, view), !!principal.impersonatorId) };
      },
      logout: async (req: pb.LogoutRequest, call: CallContext) =>
        message(await logout(ctx, callerOf(req.caller, call))),
      getUser: async (req: pb.GetUserRequest, call: CallContext) =>
        toUserResponse(await getUser(ctx, callerOf(req.caller, call))),
      updateUser: async (req: pb.UpdateUserRequest, call: CallContext) =>
        toUserResponse(await updateUser(ctx, callerOf(req.caller, call), req)),
      sendVerificationEmail: async (req: pb.SendVerificationEmailRequest, call: CallContext) =>
        message(await sendVerificationEmail(ctx, callerOf(req.caller, call))),
      verifyUser: async (req: pb.VerifyUserRequest, call: CallContext) =>
        message(await verifyUser(ctx, correlated(req, call))),
      changePassword: async (req: pb.ChangePasswordRequest, call: CallContext) =>
        message(await changePassword(ctx, callerOf(req.caller, call), req)),
      forgotPassword: async (req: pb.ForgotPasswordRequest, call: CallContext) =>
        message(await forgotPassword(ctx, correlated(req, call))),
      resetPassword: async (req: pb.ResetPasswordRequest, call: CallContext) =>
        message(await resetPassword(ctx, correlated(req, call))),
      listUsers: async (req: pb.ListUsersRequest, call: CallContext) => {
        const page = await listUsersPage(ctx, callerOf(req.caller, call), req);
        return { users: page.users.map((u) => toProtoUser(u)), nextCursor: page.nextCursor };
      },
      getUserStats: async (req: pb.GetUserStatsRequest, call: CallContext) =>
        userStats(ctx, callerOf(req.caller, call)),
      deleteUser: async (req: pb.DeleteUserRequest, call: CallContext) =>
        message(await deleteUser(ctx, callerOf(req.caller, call), req.userId)),
      upgradeUser: async (req: pb.UpgradeUserRequest, call: CallContext) =>
        message(await upgradeUser(ctx, callerOf(req.caller, call), req)),
      impersonate: async (req: pb.ImpersonateRequest, call: CallContext) =>
        toAuthResponse(await impersonate(ctx, callerOf(req.caller, call), req.userId)),
      exitImpersonation: async (req: pb.ExitImpersonationRequest, call: CallContext) =>
        toAuthResponse(await exitImpersonation(ctx, callerOf(req.caller, call))),
      listReferrals: async (req: pb.ListReferralsRequest, call: CallContext) => ({
        referrals: (await listReferrals(ctx, callerOf(req.caller, call))).map(toReferral),
      }),
      listCountries: async (_req: pb.ListCountriesRequest): Promise<pb.ListCountriesResponse> => ({
        countries: listCountries(),
      }),
    },
    { logger },
  );
  return {
    ...handlers,
    getPersonalDataKeys: createPersonalDataKeysHandler(ctx.personalData, serviceToken, logger),
  };
}
