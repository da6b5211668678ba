/**
 * Which kyc integration event becomes which emails (pure). The kyc events carry the user's name and
 * email (kyc learns them from identity's events and from the gateway); when an event has none, the
 * directory notification keeps from identity's events fills in.
 *
 *   KycSubmitted → kycSubmitted to every administrator in the directory (one email per admin)
 *   KycApproved  → kycApproved to the user
 *   KycRejected  → kycRejected to the user, with the reason
 */
import type { KycApproved, KycRejected, KycSubmitted } from '@meridian/proto/meridian/kyc/v1/events';
import { eventGuard, type KeyedEmailRequest } from './email.js';

export type KycEmailEvent =
  | { type: 'KycSubmitted'; data: KycSubmitted }
  | { type: 'KycApproved'; data: KycApproved }
  | { type: 'KycRejected'; data: KycRejected };

export const kycEmailEventTypes: ReadonlySet<string> = new Set<KycEmailEvent['type']>([
  'KycSubmitted',
  'KycApproved',
  'KycRejected',
]);

export const isKycEmailEvent = eventGuard<KycEmailEvent>(kycEmailEventTypes);

/** One person notification can write to (from identity's UserRegistered / RoleChanged / ProfileUpdated). */
export interface DirectoryEntry {
  userId: string;
  email: string;
  name: string;
  role: string;
}

export function emailsForKycEvent(
  event: KycEmailEvent,
  directory: { user: DirectoryEntry | null; admins: readonly DirectoryEntry[] },
): KeyedEmailRequest[] {
  const d = event.data;
  const userName = d.name || directory.user?.name || '';
  const userEmail = d.email || directory.user?.email || '';
  switch (event.type) {
    case 'KycSubmitted':
      return directory.admins
        .filter((a) => a.email)
        .map((a) => ({
          key: a.userId,
          request: {
            to: a.email,
            userId: a.userId,
            template: 'kycSubmitted',
            data: { name: a.name, userName: userName || userEmail, userEmail },
          },
        }));
    case 'KycApproved':
      if (!userEmail) return [];
      return [
        {
          key: '',
          request: { to: userEmail, userId: d.userId, template: 'kycApproved', data: { name: userName } },
        },
      ];
    case 'KycRejected':
      if (!userEmail) return [];
      return [
        {
          key: '',
          request: {
            to: userEmail,
            userId: d.userId,
            template: 'kycRejected',
            data: { name: userName, reason: event.data.reason },
          },
        },
      ];
    default:
      return assertNever(event);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled kyc event ${JSON.stringify(value)}`);
}
