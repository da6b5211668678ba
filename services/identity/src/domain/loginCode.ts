/**
 * LoginCode (one per user, state-stored): a 6-digit code for signing in from a new browser.
 * The digits are drawn by the caller (crypto), only their keyed hash is kept; 15 minutes; at most
 * 5 wrong attempts; single use. A new code replaces the previous one and starts its own count of wrong
 * attempts: a code freshly mailed to the owner works whatever strangers guessed before, so nobody who
 * only knows the address can lock its owner out. Guessing is bounded by the codes the account can be
 * sent (identity's `sendCodePerEmail` budget) times 5 attempts each.
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import { unknownCommand, unknownEvent } from '@meridian/platform/eventSourcing/exhaustive';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { constantTimeEqual } from './constantTime.js';

export const LOGIN_CODE_TTL_MS = 15 * 60 * 1000;
export const LOGIN_CODE_MAX_ATTEMPTS = 5;
export const INVALID_LOGIN_CODE = 'Invalid or expired login code';

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
}

export const initialState = (): LoginCodeState => ({
  codeHash: null,
  expiresAt: null,
  failedAttempts: 0,
  consumed: false,
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
    case 'LoginCodeAttemptFailed':
      return { ...state, failedAttempts: state.failedAttempts + 1 };
    case 'LoginCodeConsumed':
      return { ...state, consumed: true };
    default:
      return unknownEvent(event, state);
  }
}

/**
 * AttemptLoginCode answers [LoginCodeConsumed] on a match, [LoginCodeAttemptFailed] on a mismatch
 * (the caller persists it, then refuses), and throws when no usable code exists (none issued, expired,
 * used, or 5 wrong attempts at it).
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
