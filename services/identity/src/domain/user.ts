/**
 * The User aggregate (stream `user-<id>`): pure decider.
 *
 * Its events ARE the integration events of proto/meridian/identity/v1/events.proto (same type names,
 * same camelCase data): they are appended to the store and relayed to `meridian.identity.events`.
 * Secrets never appear in them except sealed (AES-GCM, done by the caller before the command).
 * Password hashes, one-time tokens and login codes live outside the stream (see loginCode.ts,
 * oneTimeToken.ts and the app layer), so nothing here can leak them.
 */
import {
  DomainError,
  forbidden,
  invalid,
  notFound,
  precondition,
} from '@meridian/platform/eventSourcing/errors';
import { unknownCommand, unknownEvent } from '@meridian/platform/eventSourcing/exhaustive';
import { requireAdminRole } from '@meridian/platform/eventSourcing/guards';
import type { Decider } from '@meridian/platform/eventSourcing/types';

export const ROLES = ['subscriber', 'author', 'admin', 'suspended'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

export const toUserStreamId = (userId: string) => `user-${userId}`;

export const PROFILE_FIELDS = ['name', 'phone', 'bio', 'country', 'photo'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];
export type ProfileChanges = Partial<Record<ProfileField, string>>;

// ---------- events (data mirror events.proto; checked against the generated types in adapters/) ----------

export type UserRegistered = {
  type: 'UserRegistered';
  data: {
    userId: string;
    name: string;
    email: string;
    role: string;
    referralCode: string;
    referredBy: string;
    registeredAt: string;
    phone: string;
    country: string;
    /** identity's blind index of the canonical email ('' on the bus; see events.proto) */
    emailIndex: string;
  };
};
export type EmailVerificationRequested = {
  type: 'EmailVerificationRequested';
  data: { userId: string; email: string; name: string; sealedToken: string; expiresAt: string };
};
export type UserVerified = { type: 'UserVerified'; data: { userId: string; verifiedAt: string } };
export type LoginCodeRequested = {
  type: 'LoginCodeRequested';
  data: { userId: string; email: string; name: string; sealedCode: string; expiresAt: string };
};
export type PasswordResetRequested = {
  type: 'PasswordResetRequested';
  data: { userId: string; email: string; name: string; sealedToken: string; expiresAt: string };
};
export type PasswordChanged = {
  type: 'PasswordChanged';
  data: { userId: string; email: string; name: string; via: 'change' | 'reset'; changedAt: string };
};
export type RoleChanged = {
  type: 'RoleChanged';
  data: { userId: string; email: string; name: string; fromRole: string; toRole: string; changedBy: string };
};
export type UserDeleted = { type: 'UserDeleted'; data: { userId: string; deletedBy: string } };
export type ProfileUpdated = {
  type: 'ProfileUpdated';
  data: {
    userId: string;
    fields: string[];
    name: string;
    phone: string;
    bio: string;
    country: string;
    photo: string;
  };
};
export type ImpersonationStarted = {
  type: 'ImpersonationStarted';
  data: { adminId: string; userId: string };
};
export type ImpersonationEnded = { type: 'ImpersonationEnded'; data: { adminId: string; userId: string } };

export type UserEvent =
  | UserRegistered
  | EmailVerificationRequested
  | UserVerified
  | LoginCodeRequested
  | PasswordResetRequested
  | PasswordChanged
  | RoleChanged
  | UserDeleted
  | ProfileUpdated
  | ImpersonationStarted
  | ImpersonationEnded;

// ---------- commands (time and ids come in) ----------

export type RegisterUser = {
  type: 'RegisterUser';
  userId: string;
  name: string;
  email: string;
  phone: string;
  country: string;
  role: Role;
  referralCode: string;
  referredBy: string;
  /** The blind index of the canonical email (IdentityCrypto.emailIndex). */
  emailIndex: string;
  now: Date;
  /** Already verified (first admin, a verified identity-provider email). */
  verified?: boolean;
  /** The sealed verification token to mail, when not verified. */
  verification?: { sealedToken: string; expiresAt: Date };
};
export type RequestVerification = { type: 'RequestVerification'; sealedToken: string; expiresAt: Date };
export type VerifyEmail = { type: 'VerifyEmail'; now: Date };
export type RequestLoginCode = { type: 'RequestLoginCode'; sealedCode: string; expiresAt: Date };
export type RequestPasswordReset = { type: 'RequestPasswordReset'; sealedToken: string; expiresAt: Date };
export type ChangePassword = {
  type: 'ChangePassword';
  via: 'change' | 'reset';
  /** For via 'change': whether the old password was verified by the caller. */
  oldPasswordMatches?: boolean;
  now: Date;
};
export type UpdateProfile = { type: 'UpdateProfile'; changes: ProfileChanges };
export type ChangeRole = {
  type: 'ChangeRole';
  actorId: string;
  actorRole: string;
  role: string;
  /** How many users hold the admin role right now (from the read model). */
  adminCount: number;
};
export type DeleteUser = { type: 'DeleteUser'; actorId: string; actorRole: string };
export type StartImpersonation = { type: 'StartImpersonation'; adminId: string; adminRole: string };
export type EndImpersonation = { type: 'EndImpersonation'; adminId: string };

export type UserCommand =
  | RegisterUser
  | RequestVerification
  | VerifyEmail
  | RequestLoginCode
  | RequestPasswordReset
  | ChangePassword
  | UpdateProfile
  | ChangeRole
  | DeleteUser
  | StartImpersonation
  | EndImpersonation;

// ---------- state ----------

interface UserFacts {
  userId: string;
  email: string;
  name: string;
  role: Role;
  isVerified: boolean;
}

export type UserState =
  { status: 'none' } | ({ status: 'active' } & UserFacts) | ({ status: 'deleted' } & UserFacts);
export type ActiveUserState = Extract<UserState, { status: 'active' }>;

export const initialState = (): UserState => ({ status: 'none' });

export function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return {
        status: 'active',
        userId: event.data.userId,
        email: event.data.email,
        name: event.data.name,
        role: isRole(event.data.role) ? event.data.role : 'subscriber',
        isVerified: false,
      };
    case 'UserVerified':
      return state.status === 'none' ? state : { ...state, isVerified: true };
    case 'RoleChanged':
      return state.status === 'none' || !isRole(event.data.toRole)
        ? state
        : { ...state, role: event.data.toRole };
    case 'ProfileUpdated':
      return state.status === 'none' || !event.data.fields.includes('name')
        ? state
        : { ...state, name: event.data.name };
    case 'UserDeleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    case 'EmailVerificationRequested':
    case 'LoginCodeRequested':
    case 'PasswordResetRequested':
    case 'PasswordChanged':
    case 'ImpersonationStarted':
    case 'ImpersonationEnded':
      return state;
    default:
      return unknownEvent(event, state);
  }
}

// ---------- validation shared with the app layer ----------

export const MESSAGES = {
  allFieldsRequired: 'All fields are required',
  enterEmail: 'Please enter an email',
  invalidEmail: 'Please enter a valid email',
  passwordTooShort: 'Password must be up to 6 characters',
  passwordTooLong: 'Password must be at most 128 characters',
  userNotFound: 'User not found',
  alreadyVerified: 'Account already verified',
  suspended: 'Your account has been suspended. Please contact support',
  notAuthorized: 'Not authorized as an admin',
  ownRole: 'You cannot change your own role',
  ownDelete: 'You cannot delete your own account',
  lastAdmin: 'The last admin cannot be demoted',
  selectRole: 'Please select a role',
  invalidRole: 'Invalid role',
  impersonateAdmin: 'Admins cannot be impersonated',
  incorrectOldPassword: 'Incorrect old password',
  nameRequired: 'Name cannot be empty',
  invalidPhoto: 'Photo must be a valid http(s) address',
  fieldTooLong: (field: string) => `${field} is too long`,
} as const;

/** Email rule of spec §5: a local part, then a domain with a dot and a TLD of at least 2 letters, or a bracketed IP. */
const EMAIL_RE =
  /^(([^<>()[\]\\.,;:\s@"]+(\.[^<>()[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;

export const isValidEmail = (email: string) => email.length <= 254 && EMAIL_RE.test(email);
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * The address an account is unique by (registration, login, login codes, Google linking): lower case,
 * the local part without its plus-tag (`A.B+news@X.com` -> `a.b@x.com`). Mail still goes to the
 * address as registered; this only says which account an address names.
 */
export function canonicalEmail(email: string): string {
  const normalized = normalizeEmail(email);
  const at = normalized.lastIndexOf('@');
  const local = normalized.slice(0, at);
  const plus = local.startsWith('"') ? -1 : local.indexOf('+');
  return plus > 0 ? local.slice(0, plus) + normalized.slice(at) : normalized;
}

export function checkPassword(password: string): void {
  if (password.length < 6) throw invalid(MESSAGES.passwordTooShort);
  if (password.length > 128) throw invalid(MESSAGES.passwordTooLong);
}

const FIELD_LIMITS: Record<ProfileField, number> = {
  name: 100,
  phone: 40,
  bio: 1000,
  country: 100,
  photo: 80_000,
};
/** An inline picture as the profile screen sends it (spec §5: jpeg, jpg or png only), base64, under the photo limit. */
const INLINE_PHOTO = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$/;
/** The longest photo address (an image service's URL). */
const PHOTO_URL_MAX_CHARS = 2048;

/**
 * A personal value sealed with its owner's key (`pd1.…`, @meridian/platform/personalData): the app layer
 * checks the plain value before it seals it, so the decider takes a sealed one as it is.
 */
const isSealedValue = (value: string) => value.startsWith('pd1.');

/** The rules of the profile form's fields (values sealed already were checked before sealing). */
export function checkProfile(changes: ProfileChanges): void {
  for (const field of PROFILE_FIELDS) {
    const value = changes[field];
    if (value === undefined || isSealedValue(value)) continue;
    if (value.length > FIELD_LIMITS[field])
      throw invalid(MESSAGES.fieldTooLong(field[0].toUpperCase() + field.slice(1)));
  }
  if (changes.name !== undefined && changes.name.trim() === '') throw invalid(MESSAGES.nameRequired);
  if (changes.photo && !isSealedValue(changes.photo) && !INLINE_PHOTO.test(changes.photo)) {
    let ok = false;
    try {
      const url = new URL(changes.photo);
      ok =
        (url.protocol === 'https:' || url.protocol === 'http:') &&
        changes.photo.length <= PHOTO_URL_MAX_CHARS;
    } catch {
      ok = false;
    }
    if (!ok) throw invalid(MESSAGES.invalidPhoto);
  }
}

/** Login is allowed only for an existing, not suspended user. */
export function assertCanSignIn(state: UserState): asserts state is ActiveUserState {
  if (state.status !== 'active') throw notFound(MESSAGES.userNotFound);
  if (state.role === 'suspended') throw forbidden(MESSAGES.suspended);
}

// ---------- decide ----------

function active(state: UserState): ActiveUserState {
  if (state.status !== 'active') throw notFound(MESSAGES.userNotFound);
  return state;
}

/** Whom an event that notification mails is about, and where to write to them. */
const addressee = (user: { userId: string; email: string; name: string }) => ({
  userId: user.userId,
  email: user.email,
  name: user.name,
});

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'RegisterUser': {
      if (state.status !== 'none') throw new DomainError('conflict', 'User already exists');
      const at = command.now.toISOString();
      const events: UserEvent[] = [
        {
          type: 'UserRegistered',
          data: {
            userId: command.userId,
            name: command.name,
            email: command.email,
            role: command.role,
            referralCode: command.referralCode,
            referredBy: command.referredBy,
            registeredAt: at,
            phone: command.phone,
            country: command.country,
            emailIndex: command.emailIndex,
          },
        },
      ];
      if (command.verified) {
        events.push({ type: 'UserVerified', data: { userId: command.userId, verifiedAt: at } });
      } else if (command.verification) {
        const { sealedToken, expiresAt } = command.verification;
        events.push({
          type: 'EmailVerificationRequested',
          data: { ...addressee(command), sealedToken, expiresAt: expiresAt.toISOString() },
        });
      }
      return events;
    }
    case 'RequestVerification': {
      const s = active(state);
      if (s.isVerified) throw precondition(MESSAGES.alreadyVerified);
      const { sealedToken, expiresAt } = command;
      return [
        {
          type: 'EmailVerificationRequested',
          data: { ...addressee(s), sealedToken, expiresAt: expiresAt.toISOString() },
        },
      ];
    }
    case 'VerifyEmail': {
      const s = active(state);
      if (s.isVerified) return [];
      return [{ type: 'UserVerified', data: { userId: s.userId, verifiedAt: command.now.toISOString() } }];
    }
    case 'RequestLoginCode': {
      assertCanSignIn(state);
      const { sealedCode, expiresAt } = command;
      return [
        {
          type: 'LoginCodeRequested',
          data: { ...addressee(state), sealedCode, expiresAt: expiresAt.toISOString() },
        },
      ];
    }
    case 'RequestPasswordReset': {
      const { sealedToken, expiresAt } = command;
      return [
        {
          type: 'PasswordResetRequested',
          data: { ...addressee(active(state)), sealedToken, expiresAt: expiresAt.toISOString() },
        },
      ];
    }
    case 'ChangePassword': {
      const s = active(state);
      if (command.via === 'change' && command.oldPasswordMatches !== true)
        throw invalid(MESSAGES.incorrectOldPassword);
      return [
        {
          type: 'PasswordChanged',
          data: { ...addressee(s), via: command.via, changedAt: command.now.toISOString() },
        },
      ];
    }
    case 'UpdateProfile': {
      const s = active(state);
      checkProfile(command.changes);
      const fields = PROFILE_FIELDS.filter((f) => command.changes[f] !== undefined);
      if (fields.length === 0) return [];
      const value = (f: ProfileField) =>
        f === 'name' ? (command.changes.name ?? '').trim() : (command.changes[f] ?? '');
      return [
        {
          type: 'ProfileUpdated',
          data: {
            userId: s.userId,
            fields: [...fields],
            name: fields.includes('name') ? value('name') : '',
            phone: fields.includes('phone') ? value('phone') : '',
            bio: fields.includes('bio') ? value('bio') : '',
            country: fields.includes('country') ? value('country') : '',
            photo: fields.includes('photo') ? value('photo') : '',
          },
        },
      ];
    }
    case 'ChangeRole': {
      requireAdminRole(command.actorRole, MESSAGES.notAuthorized);
      if (!command.role) throw invalid(MESSAGES.selectRole);
      if (!isRole(command.role)) throw invalid(MESSAGES.invalidRole);
      const s = active(state);
      if (s.userId === command.actorId) throw forbidden(MESSAGES.ownRole);
      if (s.role === command.role) return [];
      if (s.role === 'admin' && command.adminCount <= 1) throw precondition(MESSAGES.lastAdmin);
      return [
        {
          type: 'RoleChanged',
          data: {
            ...addressee(s),
            fromRole: s.role,
            toRole: command.role,
            changedBy: command.actorId,
          },
        },
      ];
    }
    case 'DeleteUser': {
      requireAdminRole(command.actorRole, MESSAGES.notAuthorized);
      const s = active(state);
      if (s.userId === command.actorId) throw forbidden(MESSAGES.ownDelete);
      return [{ type: 'UserDeleted', data: { userId: s.userId, deletedBy: command.actorId } }];
    }
    case 'StartImpersonation': {
      requireAdminRole(command.adminRole, MESSAGES.notAuthorized);
      const s = active(state);
      if (s.role === 'admin') throw forbidden(MESSAGES.impersonateAdmin);
      return [{ type: 'ImpersonationStarted', data: { adminId: command.adminId, userId: s.userId } }];
    }
    case 'EndImpersonation': {
      if (state.status === 'none') throw notFound(MESSAGES.userNotFound);
      return [{ type: 'ImpersonationEnded', data: { adminId: command.adminId, userId: state.userId } }];
    }
    default:
      return unknownCommand(command);
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = { decide, evolve, initialState };
