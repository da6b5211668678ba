/**
 * Applies the read models of projections/views.ts to freshly appended events, inside their transaction;
 * and rebuilds them from the log alone (the users directory comes from identity's topic instead).
 */
import { COUNTERS, countedWrite } from '@meridian/platform/ports/pendingCount';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { ServiceStore, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  type BalancesChanged,
  type ChainFields,
  GENESIS,
  type TransactionPosted,
  storedOrComputedLink,
} from '../domain/account.js';
import type { DepositEvent } from '../domain/deposit.js';
import {
  type AccountDoc,
  type BalancesDoc,
  type DepositDoc,
  COLLECTIONS,
  ID_FIELDS,
  PENDING_DEPOSITS,
  accountDocId,
  lastTransactionOfUser,
  projectAccount,
  projectBalances,
  projectDeposit,
  projectTransaction,
} from '../projections/views.js';

/**
 * The read models of `events`, in order. The account documents a pass touches are read once and written
 * once at its end (a batch posts many times on the same few accounts).
 */
export async function project(tx: StoreTx, events: readonly StoredEvent[]): Promise<void> {
  const accounts = new Map<string, AccountDoc | null>();
  for (const event of events) {
    switch (event.type) {
      case 'TransactionPosted': {
        const e = event as StoredEvent<TransactionPosted>;
        const link = await chainLinkOf(tx, e.data);
        await tx.put(COLLECTIONS.transactions, e.data.transactionId, projectTransaction(e, link));
        for (const entry of e.data.entries) {
          const id = accountDocId(entry.accountId, e.data.userId);
          const doc = accounts.has(id)
            ? (accounts.get(id) as AccountDoc | null)
            : await tx.get<AccountDoc>(COLLECTIONS.accounts, id);
          accounts.set(id, projectAccount(doc, entry, e.data.userId));
        }
        break;
      }
      case 'BalancesChanged': {
        const e = event as StoredEvent<BalancesChanged>;
        const doc = await tx.get<BalancesDoc>(COLLECTIONS.balances, e.data.userId);
        await tx.put(COLLECTIONS.balances, e.data.userId, projectBalances(doc, e));
        break;
      }
      case 'DepositRequested':
      case 'DepositConfirmed':
      case 'DepositRejected': {
        const e = event as StoredEvent<DepositEvent>;
        const id = (e.data as { depositId: string }).depositId;
        await countedWrite(tx, PENDING_DEPOSITS, id, async () => {
          const next = projectDeposit(await tx.get<DepositDoc>(COLLECTIONS.deposits, id), e);
          if (next) await tx.put(COLLECTIONS.deposits, id, next);
          return next ?? (await tx.get<DepositDoc>(COLLECTIONS.deposits, id));
        });
        break;
      }
      default:
        break;
    }
  }
  for (const [id, doc] of accounts) if (doc) await tx.put(COLLECTIONS.accounts, id, doc);
}

/**
 * A posting's link in its user's chain: the one on the event, or, for an event stored before the chain (a
 * rebuild replays those), computed after the user's previous transaction as projected (the log is replayed
 * in order, so that one is linked already).
 */
async function chainLinkOf(tx: StoreTx, posted: TransactionPosted['data']): Promise<ChainFields> {
  if (posted.hash !== undefined) return storedOrComputedLink(posted, GENESIS);
  const last = await lastTransactionOfUser(tx, posted.userId);
  const prev =
    last?.hash !== undefined && last.seq !== undefined ? { seq: last.seq, hash: last.hash } : GENESIS;
  return storedOrComputedLink(posted, prev);
}

/** The read models made from the ledger's own events (all but the users directory). */
const OWN_COLLECTIONS = [
  COLLECTIONS.balances,
  COLLECTIONS.accounts,
  COLLECTIONS.transactions,
  COLLECTIONS.deposits,
] as const;

/**
 * Drops the read models made from the ledger's own events and projects its whole log again, in one
 * transaction (readers see the old documents or the new ones). Returns the number of events replayed.
 */
export async function rebuildReadModels(store: ServiceStore, pageSize = 500): Promise<number> {
  return store.transaction(async (tx) => {
    for (const collection of OWN_COLLECTIONS) {
      const id = ID_FIELDS[collection];
      for (const doc of await tx.find<Record<string, string>>(collection))
        await tx.delete(collection, doc[id]);
    }
    // the queue's counter goes with the deposits it counts (the replay counts them again)
    await tx.delete(COUNTERS, PENDING_DEPOSITS.id);
    let replayed = 0;
    for (let after = 0; ;) {
      const page = await store.readAll(after, pageSize);
      await project(tx, page);
      replayed += page.length;
      if (page.length < pageSize) return replayed;
      after = page[page.length - 1].position;
    }
  });
}
