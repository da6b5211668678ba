/**
 * The audit trail and each user's security events: read models of identity built from EVERY service's
 * integration events (app/audit.ts consumes the topics), so the rebuild is the same handler replayed.
 *
 * - audit-entries:   one document per event whose actor is an admin or an admin impersonating a user
 *                    (who, on whose behalf, what, when, from which address), minus the consequences an
 *                    action has on the bus (balances, postings, emails) and security events.
 * - security-events: one document per sign-in (a new browser told apart; projected as identity appends
 *                    it, projectSignIns) and per password change.
 *
 * Pure: no clock, no ids; `sortKey` (`occurredAt|eventId`) orders both and is the keyset cursor. The
 * address is copied as the event carries it: identity's own events carry it sealed with the key of the person
 * at the keyboard (app/context.ts sealAddress; personal data), opened where the entries are answered.
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';

export const AUDIT_ENTRIES = 'audit-entries';
export const SECURITY_EVENTS = 'security-events';

/** The event the sign-in use cases append to `signins-<userId>` (app/securityLog.ts). */
export const USER_SIGNED_IN = 'UserSignedIn';
/** `oidc:<provider name>`: a sign-in through a configured OpenID Connect provider (app/signIn.ts externalLogin). */
export type SignInMethod = 'password' | 'code' | 'google' | `oidc:${string}`;
export interface UserSignedInData {
  userId: string;
  method: SignInMethod;
  /** the browser was not trusted by the account before this sign-in */
  newDevice: boolean;
  signedInAt: string;
}

export interface AuditEntryDoc {
  id: string;
  at: string;
  sortKey: string;
  adminId: string;
  /** on whose behalf (impersonated) or whom the action concerned; '' when none */
  userId: string;
  action: string;
  service: string;
  address: string;
  impersonating: boolean;
  /** the event's data as JSON, sealed secrets left out */
  details: string;
}

export type SecurityEventKind = 'login' | 'new_device' | 'password_changed';
export interface SecurityEventDoc {
  id: string;
  userId: string;
  at: string;
  sortKey: string;
  kind: SecurityEventKind;
  method: string;
  address: string;
}

/**
 * Events an admin's action causes downstream (or that are not actions): not entries of their own, the
 * action that caused them is. Sign-ins are security events, not admin actions.
 */
const NOT_ACTIONS = new Set([
  'BalancesChanged',
  'TransactionPosted',
  'FundsHeld',
  'FundsReleased',
  'FundsCaptured',
  'HoldRefused',
  'EmailSent',
  'EmailFailed',
  'EmailQueued',
  'EmailVerificationRequested',
  'LoginCodeRequested',
  'PasswordResetRequested',
  USER_SIGNED_IN,
]);

/** `meridian.ledger.events` -> `ledger`. */
export const serviceOfTopic = (topic: string): string =>
  topic.replace(/^meridian\./, '').replace(/\.events$/, '');

export const sortKeyOf = (event: Pick<StoredEvent, 'occurredAt' | 'id'>): string =>
  `${event.occurredAt}|${event.id}`;

function detailsOf(data: unknown): string {
  if (!data || typeof data !== 'object') return '';
  const kept = Object.fromEntries(
    Object.entries(data as Record<string, unknown>).filter(([k]) => !/^sealed|token|code$|hash$/i.test(k)),
  );
  return JSON.stringify(kept);
}

/** The action an admin's balance edit is recorded as (the ledger posts it as TransactionPosted). */
export const BALANCE_ADJUSTED = 'BalanceAdjusted';

interface PostedData {
  transaction?: { reason?: string; userId?: string };
  reason?: string;
  userId?: string;
}

/** An admin adjustment posting (architecture §3: "shown in the audit trail"), else null. */
function adjustmentOf(event: StoredEvent): { userId?: string; data: unknown } | null {
  if (event.type !== 'TransactionPosted') return null;
  const d = (event.data ?? {}) as PostedData;
  const tx = d.transaction ?? d;
  return tx.reason === 'admin_adjustment' ? { userId: tx.userId, data: tx } : null;
}

/** The audit entry an event is, or null when it is none (no admin behind it, or not an action). */
export function auditEntryOf(event: StoredEvent, service: string): AuditEntryDoc | null {
  const actor = event.actor;
  const adjustment = adjustmentOf(event);
  if (!actor?.userId || (NOT_ACTIONS.has(event.type) && !adjustment)) return null;
  const impersonating = !!actor.impersonatorId;
  if (!impersonating && actor.role !== 'admin') return null;
  const subject = adjustment ? adjustment.userId : (event.data as { userId?: unknown } | null)?.userId;
  const userId = impersonating
    ? actor.userId
    : typeof subject === 'string' && subject !== actor.userId
      ? subject
      : '';
  return {
    id: event.id,
    at: event.occurredAt,
    sortKey: sortKeyOf(event),
    adminId: impersonating ? actor.impersonatorId! : actor.userId,
    userId,
    action: adjustment ? BALANCE_ADJUSTED : event.type,
    service,
    address: actor.address ?? '',
    impersonating,
    details: detailsOf(adjustment ? adjustment.data : event.data),
  };
}

/**
 * A sign-in's security event, written in the transaction that appends UserSignedIn (app/securityLog.ts): a
 * sign-in is identity's own fact and stays private to it (app/integrationEvents.ts), so no consumer has to
 * carry it over the bus. A rebuild runs identity's own log through it. (Sign-ins published by an older
 * version reach the same document, keyed by the event id, through the audit consumer.)
 */
export async function projectSignIns(tx: StoreTx, events: readonly StoredEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type !== USER_SIGNED_IN) continue;
    const security = securityEventOf(event);
    if (security) await tx.put<SecurityEventDoc>(SECURITY_EVENTS, security.id, security);
  }
}

/** The security event of the user an identity event is, or null. */
export function securityEventOf(event: StoredEvent): SecurityEventDoc | null {
  const base = {
    id: event.id,
    at: event.occurredAt,
    sortKey: sortKeyOf(event),
    address: event.actor?.address ?? '',
  };
  if (event.type === USER_SIGNED_IN) {
    const d = event.data as UserSignedInData;
    return { ...base, userId: d.userId, kind: d.newDevice ? 'new_device' : 'login', method: d.method };
  }
  if (event.type === 'PasswordChanged') {
    const d = event.data as { userId: string; via?: string };
    return { ...base, userId: d.userId, kind: 'password_changed', method: d.via ?? '' };
  }
  return null;
}
