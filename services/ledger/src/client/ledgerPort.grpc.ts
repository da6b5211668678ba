/**
 * LedgerPort over gRPC (proto/meridian/ledger/v1/ledger.proto), used by the ledger's callers. A refusal
 * the ledger decided comes back as a DomainError of its kind (message for people, code such as
 * INSUFFICIENT_FUNDS); a transport failure or deadline as kind 'unavailable' (outcome unknown: the
 * caller re-drives later).
 */
import { DomainError, unavailable } from '@meridian/platform/eventSourcing/errors';
import {
  type RequestOf,
  type ResponseOf,
  type UnaryMethod,
  callUnary,
  createGrpcClient,
  domainErrorFromGrpc,
} from '@meridian/platform/grpc/index';
import {
  HoldPurpose,
  LedgerServiceClient,
  SettleMaturitiesRequest,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import type { LedgerPort } from './ledgerPort.js';

const UNAVAILABLE = 'The ledger is temporarily unavailable, please try again';

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const mapped = domainErrorFromGrpc(err);
    throw mapped instanceof DomainError ? mapped : unavailable(UNAVAILABLE);
  }
}

/** An item's refusal as a DomainError of its kind (an item that failed otherwise: outcome unknown). */
function itemError(code: number, details: string): DomainError {
  const mapped = domainErrorFromGrpc({ code, details, metadata: { get: () => [] } });
  return mapped instanceof DomainError ? mapped : unavailable(UNAVAILABLE);
}

export function createGrpcLedger(
  target: string,
  options: { deadlineMs?: number; caller?: string } = {},
): LedgerPort & { close(): void } {
  // `caller`: the service this port calls as (its certificate, when the process speaks mutual TLS)
  const client = createGrpcClient(LedgerServiceClient, target, { caller: options.caller });
  const opts = { deadlineMs: options.deadlineMs ?? 5_000 };
  const unary = <M extends UnaryMethod<LedgerServiceClient>>(
    method: M,
    request: RequestOf<LedgerServiceClient, M>,
  ): Promise<ResponseOf<LedgerServiceClient, M>> => call(() => callUnary(client, method, request, opts));
  const settle =
    (method: 'captureHold' | 'releaseHold'): LedgerPort['captureHold'] =>
    async ({ userId, holdId, idempotencyKey }) => {
      await unary(method, { userId, holdId, idempotencyKey });
    };
  return {
    async placeHold(i) {
      await unary('placeHold', {
        userId: i.userId,
        holdId: i.holdId,
        purpose:
          i.purpose === 'investment'
            ? HoldPurpose.HOLD_PURPOSE_INVESTMENT
            : HoldPurpose.HOLD_PURPOSE_WITHDRAWAL,
        amountCents: i.amountCents,
        idempotencyKey: i.idempotencyKey,
      });
    },
    captureHold: settle('captureHold'),
    releaseHold: settle('releaseHold'),
    async settleMaturity(i) {
      await unary('settleMaturity', {
        userId: i.userId,
        investmentId: i.investmentId,
        principalCents: i.principalCents,
        maturityAmountCents: i.maturityAmountCents,
        idempotencyKey: i.idempotencyKey,
      });
    },
    async settleMaturities(items) {
      const { results } = await call(() =>
        callUnary(
          client,
          'settleMaturities',
          SettleMaturitiesRequest.fromPartial({ items: items.map((i) => ({ ...i })) }),
          // a batch takes longer than one call: its deadline grows with its size
          { deadlineMs: opts.deadlineMs + items.length * 20 },
        ),
      );
      return results.map((r) =>
        r.settled
          ? { investmentId: r.investmentId, settled: true as const }
          : {
              investmentId: r.investmentId,
              settled: false as const,
              error: itemError(r.errorCode, r.errorMessage),
            },
      );
    },
    async getBalances(userId) {
      const b = await unary('getBalances', { userId, callerRole: '', internal: true });
      return { depositCents: b.depositCents, investedCents: b.investedCents, profitCents: b.profitCents };
    },
    close: () => client.close(),
  };
}
