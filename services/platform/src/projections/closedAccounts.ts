/**
 * The accounts a money service has closed for their owner's deletion (app/accountClosure.ts writes them):
 * one document per user in `closedAccounts`, read by every check that refuses money for a deleted user.
 */
import type { StoreReads } from '../ports/serviceStore.js';

export const CLOSED_ACCOUNTS = 'closedAccounts';

/** `deleted`: closed by identity's UserDeleted (for good: never reopened). */
export type ClosedAccountDoc = { userId: string; closedAt: string; closedBy: string; deleted?: boolean };

export async function isAccountClosed(reads: StoreReads, userId: string): Promise<boolean> {
  return !!(await reads.get<ClosedAccountDoc>(CLOSED_ACCOUNTS, userId));
}
