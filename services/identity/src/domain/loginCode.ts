/**
 * LoginCode (one per user, state-stored): a 6-digit code for signing in from a new browser.
 * The digits are drawn by the caller (crypto), only their keyed hash is kept; 15 minutes; at most
 * 5 wrong attempts; single use. A new code replaces the previous one.
 *
 * Wrong codes also count per ACCOUNT, across reissued codes (a new code does not reset the count):
 * from the 5th failure on, each failure locks code login for a growing period (15 min, 30 min, 1 h, …
 * at most a day) during which even the right code is refused. A successful code login starts the
 * count again (a password reset, which proves the mailbox, forgets the record altogether).
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import { unknownCommand, unknownEvent } from '@meridian/platform/eventSourcing/exhaustive';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { constantTimeEqual } from './constantTime.js';

export const LOGIN_CODE_TTL_MS = 15 * 60 * 1000;
export const LOGIN_CODE_MAX_ATTEMPTS = 5;
export const INVALID_LOGIN_CODE = 'Invalid or expired login code';
/** Failures per account (across codes) from which each failure locks code login. */
export const LOGIN_CODE_LOCK_AFTER_FAILURES = 5;
export const LOGIN_CODE_FIRST_LOCK_MS = 15 * 60 * 1000;
export const LOGIN_CODE_MAX_LOCK_MS = 24 * 60 * 60 * 1000;

/** How long code login stays locked after the account's `failures`-th failure in a row (0: not locked). */
export function loginCodeLockMs(failures: number): number {
  if (failures < LOGIN_CODE_LOCK_AFTER_FAILURES) return 0;
  const doublings = Math.min(failures - LOGIN_CODE_LOCK_AFTER_FAILURES, 16);
  return Math.min(LOGIN_CODE_FIRST_LOCK_MS * 2 ** doublings, LOGIN_CODE_MAX_LOCK_MS);
}

export type LoginCodeEvent =
  | { type: 'LoginCodeIssued'; data: { codeHash: string; issuedAt: string; expiresAt: string } }
  | { type: 'LoginCodeAttemptFailed'; data: { at: string } }
  | { type: 'LoginCodeConsumed'; data: { at: string } };

export type LoginCodeCommand =
  | { type: 'IssueLoginCode'; codeHash: string; now: Date }
  | { type: 'AttemptLoginCode'; codeHash: string; now: Date };

export interface LoginCodeState {
  codeHash: string | null;
  expiresAt: string | null;
  /** wrong attempts at the current code */
  failedAttempts: number;
  consumed: boolean;
  /** wrong attempts of the account since its last successful code login, across codes (absent in older records: 0) */
  accountFailures?: number;
  /** code login is refused until then (absent or null: not locked) */
  lockedUntil?: string | null;
}

export const initialState = (): LoginCodeState => ({
  codeHash: null,
  expiresAt: null,
  failedAttempts: 0,
  consumed: false,
  accountFailures: 0,
  lockedUntil: null,
});

export function evolve(state: LoginCodeState, event: LoginCodeEvent): LoginCodeState {
  switch (event.type) {
    case 'LoginCodeIssued':
      return {
        ...state,
        codeHash: event.data.codeHash,
        expiresAt: event.data.expiresAt,
        failedAttempts: 0,
        consumed: false,
      };
    case 'LoginCodeAttemptFailed': {
      const accountFailures = (state.accountFailures ?? 0) + 1;
      const lockMs = loginCodeLockMs(accountFailures);
      return {
        ...state,
        failedAttempts: state.failedAttempts + 1,
        accountFailures,
        lockedUntil: lockMs > 0 ? new Date(Date.parse(event.data.at) + lockMs).toISOString() : null,
      };
    }
    case 'LoginCodeConsumed':
      return { ...state, consumed: true, accountFailures: 0, lockedUntil: null };
    default:
      return unknownEvent(event, state);
  }
}

/**
 * AttemptLoginCode answers [LoginCodeConsumed] on a match, [LoginCodeAttemptFailed] on a mismatch
 * (the caller persists it, then refuses), and throws when no usable code exists or code login is
 * locked (the same message: a lock is not a way to learn anything).
 */
export function decide(command: LoginCodeCommand, state: LoginCodeState): LoginCodeEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'IssueLoginCode':
      return [
        {
          type: 'LoginCodeIssued',
          data: {
            codeHash: command.codeHash,
            issuedAt: at,
            expiresAt: new Date(command.now.getTime() + LOGIN_CODE_TTL_MS).toISOString(),
          },
        },
      ];
    case 'AttemptLoginCode': {
      if (
        (state.lockedUntil && command.now.getTime() < Date.parse(state.lockedUntil)) ||
        state.codeHash === null ||
        state.expiresAt === null ||
        state.consumed ||
        state.failedAttempts >= LOGIN_CODE_MAX_ATTEMPTS ||
        command.now.getTime() >= Date.parse(state.expiresAt)
      ) {
        throw invalid(INVALID_LOGIN_CODE);
      }
      if (!constantTimeEqual(state.codeHash, command.codeHash))
        return [{ type: 'LoginCodeAttemptFailed', data: { at } }];
      return [{ type: 'LoginCodeConsumed', data: { at } }];
    }
    default:
      return unknownCommand(command);
  }
}

export const loginCodeDecider: Decider<LoginCodeCommand, LoginCodeEvent, LoginCodeState> = {
  decide,
  evolve,
  initialState,
};
