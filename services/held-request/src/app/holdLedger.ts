/**
 * What a held-money request needs of the ledger: hold, capture, release. The ledger's own client kit
 * (`@meridian/ledger/client`, its LedgerPort and gRPC adapter) satisfies it; this port only names the
 * part the held-request flow calls, so the flow lives here without the platform depending on the ledger.
 */
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import type { Cents } from '@meridian/platform/money/money';

export interface HoldLedger {
  placeHold(input: {
    userId: string;
    holdId: string;
    purpose: 'investment' | 'withdrawal';
    amountCents: Cents;
    idempotencyKey: string;
  }): Promise<void>;
  captureHold(input: { userId: string; holdId: string; idempotencyKey: string }): Promise<void>;
  releaseHold(input: { userId: string; holdId: string; idempotencyKey: string }): Promise<void>;
}

/**
 * The ledger's refusal in a failed call: the DomainError it answered. Undefined when the outcome is unknown
 * (down, deadline, transport): retry later, decide nothing.
 */
export const ledgerRefusal = (err: unknown): DomainError | undefined =>
  err instanceof DomainError && err.kind !== 'unavailable' ? err : undefined;
