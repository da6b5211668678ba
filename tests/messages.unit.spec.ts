/**
 * Where the SPA says a server rule before anyone runs into it, it says it in the server's words: the
 * balance edit screen's notice on an admin's own balances is the ledger's maker-checker refusal.
 */
import { describe, expect, it } from 'vitest';
import { MAKER_CHECKER_MESSAGES } from '@meridian/platform/domain/makerChecker';
import { BALANCE_MESSAGES } from '@meridian/web/features/balances/messages';

describe("the SPA's copies of server messages", () => {
  it("an admin's own balances: the maker-checker refusal word for word", () => {
    expect(BALANCE_MESSAGES.ownBalances).toBe(MAKER_CHECKER_MESSAGES.ownBalances);
  });
});
