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
import type { HoldLedger } from '@meridian/held-request/app/holdLedger';
import type { DomainError } from '@meridian/platform/eventSourcing/errors';
import type { Cents } from '@meridian/platform/money/money';

export interface LedgerBalances {
  depositCents: Cents;
  investedCents: Cents;
  profitCents: Cents;
}

export type MaturitySettlement = {
  userId: string;
  investmentId: string;
  principalCents: Cents;
  maturityAmountCents: Cents;
  idempotencyKey: string;
};
export type MaturitySettlementResult =
  { investmentId: string; settled: true } | { investmentId: string; settled: false; error: DomainError };

/** The hold calls (placeHold, captureHold, releaseHold) as the held-request flow names them, and the rest. */
export interface LedgerPort extends HoldLedger {
  /** An investment's maturity: its hold captured first when still held, then principal + profit, once. */
  settleMaturity(input: {
    userId: string;
    investmentId: string;
    principalCents: Cents;
    maturityAmountCents: Cents;
    idempotencyKey: string;
  }): Promise<void>;
  /**
   * Many maturities in one call (the ledger's SettleMaturities: each item captures its hold when still
   * owed, then settles, under its own key). One result per item, in order: settled, or the refusal that
   * stopped it (a DomainError). A call whose outcome is unknown throws as settleMaturity does. Optional:
   * a port without it is driven one maturity at a time.
   */
  settleMaturities?(items: readonly MaturitySettlement[]): Promise<MaturitySettlementResult[]>;
  getBalances(userId: string): Promise<LedgerBalances>;
  close?(): void;
}

/** The ledger's refusal in a failed call; undefined when the outcome is unknown (retry later, decide nothing). */
export { ledgerRefusal } from '@meridian/held-request/app/holdLedger';
