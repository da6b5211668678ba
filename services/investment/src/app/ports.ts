/**
 * What the investment use cases need from the outside, as ports. The ledger is reached over gRPC
 * (adapters/ledger.grpc.ts); tests may give a fake that enforces the same hold rules.
 *
 * Errors: a refusal the ledger decided (insufficient balance, idempotency conflict…) is thrown as a
 * DomainError of kind invalid / precondition / conflict / not_found / forbidden; a call whose outcome
 * is unknown (ledger down, deadline) as a DomainError of kind 'unavailable' — the caller then leaves the
 * request for the process manager to re-drive.
 */
import type { Cents } from '../domain/money.js';

export interface LedgerBalances {
  depositCents: Cents;
  investedCents: Cents;
  profitCents: Cents;
}

export interface LedgerPort {
  placeHold(input: {
    userId: string;
    holdId: string;
    purpose: 'investment' | 'withdrawal';
    amountCents: Cents;
    idempotencyKey: string;
  }): Promise<void>;
  captureHold(input: { userId: string; holdId: string; idempotencyKey: string }): Promise<void>;
  releaseHold(input: { userId: string; holdId: string; idempotencyKey: string }): Promise<void>;
  settleMaturity(input: {
    userId: string;
    investmentId: string;
    principalCents: Cents;
    maturityAmountCents: Cents;
    idempotencyKey: string;
  }): Promise<void>;
  getBalances(userId: string): Promise<LedgerBalances>;
  close?(): void;
}
