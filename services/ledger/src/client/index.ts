/**
 * `@meridian/ledger/client`: the client side of the ledger's contract, for the services that call it
 * (investment, withdrawal) — the LedgerPort and its gRPC adapter. The port is also importable alone
 * (`@meridian/ledger/client/ledgerPort`) so app/ code does not load the gRPC adapter. The held-request
 * flow those services run over it is theirs: @meridian/held-request.
 */
export { ledgerRefusal, type LedgerBalances, type LedgerPort } from './ledgerPort.js';
export { createGrpcLedger } from './ledgerPort.grpc.js';
