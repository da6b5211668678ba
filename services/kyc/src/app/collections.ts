/** Names of this service's read-model collections in its ServiceStore. */
export const CASES = 'kycCases';
/** name/email of identity's users, learned from identity's events. */
export const USERS = 'users';

/** The index the pending queue pages on (platform ports/pages.ts keyset pages: status, then submittedAt, then the id). */
export const KYC_INDEXES: ReadonlyArray<{ collection: string; fields: string[] }> = [
  { collection: CASES, fields: ['status', 'submittedAt'] },
];
