/**
 * `@meridian/ledger/client`: the client side of the ledger's contract, for the services that call it
 * (investment, withdrawal) — the LedgerPort, its gRPC adapter and the held-request flow. Pure modules
 * are also importable one by one (`@meridian/ledger/client/ledgerPort`, `.../heldRequest`) so app/ code
 * does not load the gRPC adapter.
 */
export { isUnknownOutcome, type LedgerBalances, type LedgerPort } from './ledgerPort.js';
export { createGrpcLedger } from './ledgerPort.grpc.js';
export {
  answerHeldRequest,
  placeHoldForRequest,
  type HeldRequestDoc,
  type HeldRequestIo,
  type HeldRequestMessages,
  type HoldOutcomeCommand,
} from './heldRequest.js';
