/**
 * The ledger as its callers (investment, withdrawal) see it: a port. The client side of the ledger's
 * own contract (proto/meridian/ledger/v1/ledger.proto), exported as `@meridian/ledger/client` so other
 * services never reach into the ledger's src. Reached over gRPC (ledgerPort.grpc.ts); tests may give a
 * fake that enforces the same hold rules.
 *
 * Errors: a refusal the ledger decided (insufficient balance, idempotency conflict…) is thrown as a
 * DomainError of kind invalid / precondition / conflict / not_found / forbidden; a call whose outcome
 * is unknown (ledger down, deadline) as a DomainError of kind 'unavailable' — the caller then leaves the
 * request for the process manager to re-drive.
 */
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import type { Cents } from '@meridian/platform/money/money';

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

/** A ledger answer whose outcome is unknown (down, deadline, transport): retry later, decide nothing. */
export const isUnknownOutcome = (err: unknown) => !(err instanceof DomainError) || err.kind === 'unavailable';
