/**
 * What the withdrawal use cases need from the outside, as ports. The ledger port is the ledger's own client
 * contract (`@meridian/ledger/client`: LedgerPort, its gRPC adapter, the held-request flow); tests may
 * give a fake that enforces the same hold rules.
 */
export type { LedgerBalances, LedgerPort } from '@meridian/ledger/client/ledgerPort';
