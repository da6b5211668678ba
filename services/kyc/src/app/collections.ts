/** Names of this service's read-model collections in its ServiceStore. */
export const CASES = 'kycCases';
/** name/email of identity's users, learned from identity's events. */
export const USERS = 'users';

/** Consumer group (and processed-marker set) of this service on other services' topics. */
export const CONSUMER_GROUP = 'kyc';
