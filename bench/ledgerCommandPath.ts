/**
 * The ledger's command path without its service around it, for the gRPC bench's breakdown of where a
 * posting's time goes: its use cases called in this process on a SQLite file store with
 * the production settings (sqliteFile.ts) and the ledger's integration mapping recorded at append, as its
 * program's store is; no gRPC, no outbox relay, no consumers. What one posting costs the store and the
 * domain alone, measured the way the calls are (the same concurrency, the same users).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { storeSynchronous, type SqliteSynchronous } from '@meridian/platform/adapters/sqliteFile';
import { withIntegrationEvents } from '@meridian/platform/app/integrationEvents';
import { timeOrderedId } from '@meridian/platform/eventSourcing/ids';
import type { Actor } from '@meridian/platform/eventSourcing/types';
import type { LedgerContext } from '@meridian/ledger/app/context';
import { createDeposit, decideDeposit } from '@meridian/ledger/app/deposits';
import { toIntegrationEvent } from '@meridian/ledger/app/integrationEvents';
import { placeHold, settleHold, settleMaturity } from '@meridian/ledger/app/money';

export interface LedgerCommandPath {
  /** A user with `dollars` in Total Investment: a confirmed deposit, a hold, its capture (as the bench funds). */
  fund(userId: string, dollars: number): Promise<void>;
  /** One posting: the maturity of a fresh investment (1 cent of principal, 1 of profit), as the calls post. */
  post(userId: string, investmentId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * `synchronous`: the ledger's own setting unless told otherwise (the bench measures the cost of FULL,
 * a sync of the WAL at every COMMIT, against NORMAL in the same run).
 */
export function openLedgerCommandPath(
  synchronous: SqliteSynchronous = storeSynchronous('ledger'),
): LedgerCommandPath {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-bench-path-'));
  const raw = createSqliteServiceStore(join(dir, 'ledger.sqlite'), { synchronous });
  const ctx: LedgerContext = {
    store: withIntegrationEvents(raw, toIntegrationEvent),
    clock: () => new Date(),
    newId: timeOrderedId,
  };
  const admin: Actor = { userId: `bench-path-admin-${timeOrderedId()}`, role: 'admin' };
  return {
    async fund(userId, dollars) {
      const actor: Actor = { userId, role: 'subscriber' };
      const deposit = await createDeposit(ctx, { actor, amount: String(dollars), emailVerified: true });
      await decideDeposit(ctx, { actor: admin, depositId: deposit.depositId, decision: 'confirm' });
      const holdId = `seed-${userId}`;
      await placeHold(ctx, { userId, holdId, purpose: 'investment', amountCents: dollars * 100 });
      await settleHold(ctx, { userId, holdId, outcome: 'capture' });
    },
    async post(userId, investmentId) {
      await settleMaturity(ctx, { userId, investmentId, principalCents: 1, maturityAmountCents: 2 });
    },
    async close() {
      await raw.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
