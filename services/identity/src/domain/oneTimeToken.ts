/**
 * One-time tokens mailed as links (state-stored, keyed by the token's hash):
 * email verification (24 h) and password reset (1 h). Single use; expired or used tokens are refused
 * with the same message as unknown ones.
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import { unknownCommand, unknownEvent } from '@meridian/platform/eventSourcing/exhaustive';
import type { Decider } from '@meridian/platform/eventSourcing/types';

export type TokenPurpose = 'verify' | 'reset';

export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  verify: 24 * 60 * 60 * 1000,
  reset: 60 * 60 * 1000,
};

export const INVALID_TOKEN_MESSAGE: Record<TokenPurpose, string> = {
  verify: 'Invalid or expired verification link',
  reset: 'Invalid or expired reset link',
};

export type TokenEvent =
  | {
      type: 'TokenIssued';
      data: { purpose: TokenPurpose; userId: string; issuedAt: string; expiresAt: string };
    }
  | { type: 'TokenConsumed'; data: { at: string } };

export type TokenCommand =
  | { type: 'IssueToken'; purpose: TokenPurpose; userId: string; now: Date }
  | { type: 'ConsumeToken'; purpose: TokenPurpose; now: Date };

export type TokenState =
  | { status: 'none' }
  | { status: 'issued' | 'consumed'; purpose: TokenPurpose; userId: string; expiresAt: string };

export const initialState = (): TokenState => ({ status: 'none' });

export function evolve(state: TokenState, event: TokenEvent): TokenState {
  switch (event.type) {
    case 'TokenIssued':
      return {
        status: 'issued',
        purpose: event.data.purpose,
        userId: event.data.userId,
        expiresAt: event.data.expiresAt,
      };
    case 'TokenConsumed':
      return state.status === 'none' ? state : { ...state, status: 'consumed' };
    default:
      return unknownEvent(event, state);
  }
}

export function expiryOf(purpose: TokenPurpose, now: Date): Date {
  return new Date(now.getTime() + TOKEN_TTL_MS[purpose]);
}

export function decide(command: TokenCommand, state: TokenState): TokenEvent[] {
  switch (command.type) {
    case 'IssueToken':
      if (state.status !== 'none') throw invalid('Token already issued');
      return [
        {
          type: 'TokenIssued',
          data: {
            purpose: command.purpose,
            userId: command.userId,
            issuedAt: command.now.toISOString(),
            expiresAt: expiryOf(command.purpose, command.now).toISOString(),
          },
        },
      ];
    case 'ConsumeToken':
      if (
        state.status !== 'issued' ||
        state.purpose !== command.purpose ||
        command.now.getTime() >= Date.parse(state.expiresAt)
      ) {
        throw invalid(INVALID_TOKEN_MESSAGE[command.purpose]);
      }
      return [{ type: 'TokenConsumed', data: { at: command.now.toISOString() } }];
    default:
      return unknownCommand(command);
  }
}

export const tokenDecider: Decider<TokenCommand, TokenEvent, TokenState> = { decide, evolve, initialState };
