// Commands and helpers the account decider's specs share: `spec` runs the decider, each command builder fills a
// valid command for user U at T0 with fresh ids, each helper reads the events a spec produced.
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { DeciderSpecification } from '@meridian/platform/testing/deciderSpec';
import {
  type AdjustBalance,
  type CaptureHold,
  type CreditDeposit,
  type PlaceHold,
  type ReleaseHold,
  type SettleMaturity,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
  accountDecider,
  decide,
  evolve,
  initialState,
} from '../domain/account.js';

export const spec = DeciderSpecification.for(accountDecider);

export const U = 'u-1';
export const T0 = new Date('2025-01-01T10:00:00.000Z');
let seq = 0;
export const fresh = (p: string) => `${p}-${++seq}`;

export const credit = (amountCents: number, depositId = fresh('dep')): CreditDeposit => ({
  type: 'CreditDeposit',
  userId: U,
  depositId,
  amountCents,
  idempotencyKey: `deposit:${depositId}`,
  transactionId: fresh('tx'),
  now: T0,
});
export const hold = (
  holdId: string,
  purpose: 'investment' | 'withdrawal',
  amountCents: number,
): PlaceHold => ({
  type: 'PlaceHold',
  userId: U,
  holdId,
  purpose,
  amountCents,
  idempotencyKey: `hold:${holdId}`,
  transactionId: fresh('tx'),
  now: T0,
});
export const capture = (holdId: string, key = `capture:${holdId}`): CaptureHold => ({
  type: 'CaptureHold',
  userId: U,
  holdId,
  idempotencyKey: key,
  transactionId: fresh('tx'),
  now: T0,
});
export const release = (holdId: string, key = `release:${holdId}`): ReleaseHold => ({
  type: 'ReleaseHold',
  userId: U,
  holdId,
  idempotencyKey: key,
  transactionId: fresh('tx'),
  now: T0,
});
export const settle = (
  investmentId: string,
  principalCents: number,
  maturityAmountCents: number,
): SettleMaturity => ({
  type: 'SettleMaturity',
  userId: U,
  investmentId,
  principalCents,
  maturityAmountCents,
  idempotencyKey: `maturity:${investmentId}`,
  transactionId: fresh('tx'),
  now: T0,
});
export const adjust = (over: Partial<AdjustBalance>): AdjustBalance => ({
  type: 'AdjustBalance',
  userId: U,
  adminId: 'admin-1',
  actorRole: 'admin',
  account: 'deposit',
  operation: 'add',
  amountCents: 1000,
  reason: 'goodwill',
  idempotencyKey: fresh('adj'),
  transactionId: fresh('tx'),
  now: T0,
  ...over,
});

/** The events a sequence of commands produces from an empty ledger (each must succeed). */
export function history(...commands: LedgerCommand[]): LedgerEvent[] {
  let state = initialState();
  const events: LedgerEvent[] = [];
  for (const command of commands) {
    for (const e of decide(command, state)) {
      events.push(e);
      state = evolve(state, e);
    }
  }
  return events;
}
export const stateOf = (events: LedgerEvent[]): LedgerState => events.reduce(evolve, initialState());
export const isDomainError = (kind: DomainError['kind']) => (e: unknown) =>
  e instanceof DomainError && e.kind === kind;
export const postedIn = (events: LedgerEvent[]) =>
  events.flatMap((e) => (e.type === 'TransactionPosted' ? [e.data] : []));
