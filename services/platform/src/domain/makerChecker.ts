/**
 * Maker-checker (docs/architecture.md §3a and §7, after Apache Fineract's): no admin confirms, approves
 * or rejects their own deposit, investment, withdrawal or KYC case, nor adjusts their own balances; and
 * while an admin impersonates a user, money commands (deposit, invest, withdraw, balance edits) are
 * refused — viewing works. Pure: the held-request lifecycle, kyc's decider and the ledger's admin entry
 * points call it, each with the owner and the admin it knows. The services do not know how many admins
 * exist, so the message says what a single-admin install needs too.
 */
import { forbidden } from '../eventSourcing/errors.js';

const SECOND_ADMIN = '(if you are the only admin, a second admin is needed)';

export const MAKER_CHECKER_MESSAGES = {
  impersonating: 'Money actions are not allowed while impersonating a user',
  /** An admin acting as the user would otherwise upload documents and then approve them (kyc and the gateway). */
  kycUploadImpersonating: 'KYC documents cannot be uploaded while impersonating a user',
  ownBalances: `You cannot adjust your own balances: another admin must do it ${SECOND_ADMIN}`,
  /** `noun`: 'deposit', 'investment', 'withdrawal', 'KYC case'. */
  ownDecision: (noun: string) =>
    `You cannot decide your own ${noun}: another admin must review it ${SECOND_ADMIN}`,
} as const;

/**
 * Refuses an admin's decision on an item they own (`ownerId`: the item's user) with `message`
 * (MAKER_CHECKER_MESSAGES.ownDecision of the item's noun).
 */
export function refuseOwnDecision(adminId: string, ownerId: string, message: string): void {
  if (adminId && adminId === ownerId) throw forbidden(message, 'OWN_ITEM');
}

/** Refuses an admin's edit of their own balances. */
export function refuseOwnBalances(adminId: string, userId: string): void {
  if (adminId && adminId === userId) throw forbidden(MAKER_CHECKER_MESSAGES.ownBalances, 'OWN_ITEM');
}

/** Refuses a money command whose caller is an admin impersonating a user (`impersonatorId` set). */
export function refuseWhileImpersonating(actor: { impersonatorId?: string } | null | undefined): void {
  if (actor?.impersonatorId) throw forbidden(MAKER_CHECKER_MESSAGES.impersonating, 'IMPERSONATING');
}
