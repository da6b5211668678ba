/** What the balance edit screens say (tests/messages.unit.spec.ts holds ownBalances to the server's words). */
export const BALANCE_MESSAGES = {
  amountRequired: 'Please enter a valid amount.',
  failed: 'Something went wrong',
  /** The server's maker-checker refusal (platform makerChecker.ts), shown before anyone tries. */
  ownBalances:
    'You cannot adjust your own balances: another admin must do it (if you are the only admin, a second admin is needed)',
} as const;
