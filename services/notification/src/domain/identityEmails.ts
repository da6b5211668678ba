/**
 * Which identity integration event becomes which email. Pure: the secrets stay sealed here.
 */
import type {
  EmailVerificationRequested,
  LoginCodeRequested,
  PasswordChanged,
  PasswordResetRequested,
  RoleChanged,
} from '@meridian/proto/meridian/identity/v1/events';
import type { EmailRequest } from './email.js';

export type IdentityEmailEvent =
  | { type: 'EmailVerificationRequested'; data: EmailVerificationRequested }
  | { type: 'LoginCodeRequested'; data: LoginCodeRequested }
  | { type: 'PasswordResetRequested'; data: PasswordResetRequested }
  | { type: 'PasswordChanged'; data: PasswordChanged }
  | { type: 'RoleChanged'; data: RoleChanged };

export const identityEmailEventTypes: ReadonlySet<string> = new Set<IdentityEmailEvent['type']>([
  'EmailVerificationRequested',
  'LoginCodeRequested',
  'PasswordResetRequested',
  'PasswordChanged',
  'RoleChanged',
]);

export function isIdentityEmailEvent(event: { type: string; data: unknown }): event is IdentityEmailEvent {
  return identityEmailEventTypes.has(event.type) && typeof event.data === 'object' && event.data !== null;
}

/** The email an identity event asks for, or null when it asks for none (no address, say). */
export function emailForIdentityEvent(event: IdentityEmailEvent): EmailRequest | null {
  const d = event.data;
  if (!d.email) return null;
  const base = { to: d.email, userId: d.userId };
  switch (event.type) {
    case 'EmailVerificationRequested':
      return {
        ...base,
        template: 'verifyEmail',
        data: { name: event.data.name },
        sealed: { token: event.data.sealedToken },
      };
    case 'LoginCodeRequested':
      return {
        ...base,
        template: 'loginCode',
        data: { name: event.data.name, email: event.data.email },
        sealed: { code: event.data.sealedCode },
      };
    case 'PasswordResetRequested':
      return {
        ...base,
        template: 'resetPassword',
        data: { name: event.data.name },
        sealed: { token: event.data.sealedToken },
      };
    case 'PasswordChanged':
      return {
        ...base,
        template: 'passwordChanged',
        data: { name: event.data.name, via: event.data.via, changedAt: event.data.changedAt },
      };
    case 'RoleChanged':
      return {
        ...base,
        template: 'roleChanged',
        data: { name: event.data.name, fromRole: event.data.fromRole, toRole: event.data.toRole },
      };
    default:
      return assertNever(event);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled identity event ${JSON.stringify(value)}`);
}
