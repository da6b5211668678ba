/**
 * The user's ledger (stream `ledger-<userId>`): pure decider over the accounts of ONE user.
 *
 * Double entry (architecture.md §3): every money movement is a LedgerTransaction of two or more entries that
 * sum to zero. An account's balance is the sum of its entries. User accounts (`deposit`, `invested`,
 * `profit`, `withdrawal_hold`, `investment_hold`) never go negative; platform accounts (`cash`, `yield`,
 * `referral`, `adjustment`) are the counterparts and carry the opposite sign (cash goes negative as
 * money comes in from the outside world). Every transaction touches the accounts of one user at most,
 * so this one stream (optimistic concurrency on its version) serialises everything that could overdraw
 * them; platform balances are projections over all streams.
 *
 * Holds are two-phase postings: PlaceHold moves the amount from the source account (deposit for an
 * investment, profit for a withdrawal) into the matching hold account, so the shown balance drops at
 * request time and no second request can spend the same dollar; CaptureHold moves it on (to `invested`,
 * or to `cash` = paid out), ReleaseHold moves it back. Each happens at most once per hold.
 *
 * Idempotency: every money command carries an idempotency key (the id of the command or event that
 * caused it). The same key with the same payload fingerprint decides nothing new (the app answers with
 * the earlier result: `earlierResult`, `holdOf`); the same key with another payload is refused.
 * Refusals (insufficient balance) are thrown, not recorded: nothing moved, so a retry decides afresh.
 *
 * The decider by role, in account/: accounts.ts (accounts, transactions), events.ts, commands.ts,
 * evolve.ts (state), decide.ts; this module is its one public entry.
 */
import type { Decider } from '@meridian/platform/eventSourcing/types';
import type { LedgerCommand } from './account/commands.js';
import { decide } from './account/decide.js';
import type { LedgerEvent } from './account/events.js';
import { type LedgerState, evolve, initialState } from './account/evolve.js';

export * from './account/accounts.js';
export * from './account/chain.js';
export * from './account/commands.js';
export * from './account/decide.js';
export * from './account/events.js';
export * from './account/evolve.js';

export const accountDecider: Decider<LedgerCommand, LedgerEvent, LedgerState> = {
  decide,
  evolve,
  initialState,
};
