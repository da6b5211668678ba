/** Applies the read models of projections/views.ts to freshly appended events, inside their transaction. */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreTx } from '@meridian/platform/ports/serviceStore';
import type { BalancesChanged, TransactionPosted } from '../domain/account.js';
import type { DepositEvent } from '../domain/deposit.js';
import {
  type AccountDoc,
  type BalancesDoc,
  type DepositDoc,
  COLLECTIONS,
  projectAccount,
  projectBalances,
  projectDeposit,
  projectTransaction,
} from '../projections/views.js';

export async function project(tx: StoreTx, events: readonly StoredEvent[]): Promise<void> {
  for (const event of events) {
    switch (event.type) {
      case 'TransactionPosted': {
        const e = event as StoredEvent<TransactionPosted>;
        await tx.put(COLLECTIONS.transactions, e.data.transactionId, projectTransaction(e));
        for (const entry of e.data.entries) {
          const doc = await tx.get<AccountDoc>(COLLECTIONS.accounts, entry.accountId);
          await tx.put(COLLECTIONS.accounts, entry.accountId, projectAccount(doc, entry));
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
        const next = projectDeposit(await tx.get<DepositDoc>(COLLECTIONS.deposits, id), e);
        if (next) await tx.put(COLLECTIONS.deposits, id, next);
        break;
      }
      default:
        break;
    }
  }
}
