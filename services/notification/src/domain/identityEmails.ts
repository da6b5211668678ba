/**
 * Which identity integration event becomes which email. Pure: the secrets stay sealed here.
 */
import type { IdentityEventOf } from '@meridian/platform/domain/identityEvents';
import { eventGuard, type EmailRequest } from './email.js';

export type IdentityEmailEvent = IdentityEventOf<
  | 'EmailVerificationRequested'
  | 'LoginCodeRequested'
  | 'PasswordResetRequested'
  | 'PasswordChanged'
  | 'RoleChanged'
>;

type DataOf<T extends IdentityEmailEvent['type']> = Extract<IdentityEmailEvent, { type: T }>['data'];
type Email = Omit<EmailRequest, 'to' | 'userId'>;

/** An email carrying a sealed link token (opened only to render the link). */
const linkEmail =
  (template: 'verifyEmail' | 'resetPassword') =>
  (d: { name: string; sealedToken: string }): Email => ({
    template,
    data: { name: d.name },
    sealed: { token: d.sealedToken },
  });

/** The email each identity event asks for; it goes to the address the event carries. */
const EMAILS: { [T in IdentityEmailEvent['type']]: (d: DataOf<T>) => Email } = {
  EmailVerificationRequested: linkEmail('verifyEmail'),
  LoginCodeRequested: (d) => ({
    template: 'loginCode',
    data: { name: d.name, email: d.email },
    sealed: { code: d.sealedCode },
  }),
  PasswordResetRequested: linkEmail('resetPassword'),
  PasswordChanged: (d) => ({
    template: 'passwordChanged',
    data: { name: d.name, via: d.via, changedAt: d.changedAt },
  }),
  RoleChanged: (d) => ({
    template: 'roleChanged',
    data: { name: d.name, fromRole: d.fromRole, toRole: d.toRole },
  }),
};

export const identityEmailEventTypes: ReadonlySet<string> = new Set(Object.keys(EMAILS));

export const isIdentityEmailEvent = eventGuard<IdentityEmailEvent>(identityEmailEventTypes);

/** The email of one event type, from that type's data (EMAILS indexed by the event's own type). */
const emailOf = <T extends IdentityEmailEvent['type']>(event: { type: T; data: DataOf<T> }): Email =>
  EMAILS[event.type](event.data);

/** The email an identity event asks for, or null when it asks for none (no address, say). */
export function emailForIdentityEvent(event: IdentityEmailEvent): EmailRequest | null {
  const d = event.data;
  if (!d.email) return null;
  return { to: d.email, userId: d.userId, ...emailOf(event) };
}
