/**
 * The reconciliation check run after every integration test (architecture.md §8):
 * - every TransactionPosted in the event log has >= 2 entries on distinct accounts summing to zero;
 * - the transactions read model holds exactly the posted transactions;
 * - every account read model equals the sum of that account's entries in the log, and every account
 *   with entries has one; all accounts together sum to zero;
 * - every user balance read model (what is shown: balance, investmentBalance, totalMaturityAmount and
 *   the holds) equals the sum of the entries of the matching user account, and none is negative.
 */
import { expect } from 'vitest';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import {
  type TransactionPosted,
  USER_ACCOUNT_KINDS,
  type UserAccountKind,
  transactionProblem,
  userAccount,
} from '../domain/account.js';
import { snapshotCollections } from '@meridian/platform/testing/readModels';
import { rebuildReadModels } from '../app/project.js';
import {
  type AccountDoc,
  type BalancesDoc,
  COLLECTIONS,
  ID_FIELDS,
  type TransactionDoc,
} from '../projections/views.js';

const FIELD: Record<UserAccountKind, keyof BalancesDoc> = {
  deposit: 'depositCents',
  invested: 'investedCents',
  profit: 'profitCents',
  withdrawal_hold: 'withdrawalHoldCents',
  investment_hold: 'investmentHoldCents',
};

export async function ledgerInvariantProblems(store: ServiceStore): Promise<string[]> {
  const problems: string[] = [];
  const sums = new Map<string, bigint>();
  const posted = new Map<string, TransactionPosted['data']>();
  for (let after = 0; ;) {
    const page = await store.readAll(after, 1000);
    if (page.length === 0) break;
    after = page[page.length - 1].position;
    for (const event of page as StoredEvent[]) {
      if (event.type !== 'TransactionPosted') continue;
      const tx = event.data as TransactionPosted['data'];
      if (posted.has(tx.transactionId)) problems.push(`transaction ${tx.transactionId} posted twice`);
      posted.set(tx.transactionId, tx);
      const problem = transactionProblem(tx.entries);
      if (problem) problems.push(`transaction ${tx.transactionId}: ${problem}`);
      for (const e of tx.entries)
        sums.set(e.accountId, (sums.get(e.accountId) ?? 0n) + BigInt(e.amountCents));
    }
  }

  const total = [...sums.values()].reduce((a, b) => a + b, 0n);
  if (total !== 0n) problems.push(`all accounts sum to ${total}, not 0`);

  const txDocs = await store.find<TransactionDoc>(COLLECTIONS.transactions);
  if (txDocs.length !== posted.size)
    problems.push(`${txDocs.length} transactions shown, ${posted.size} posted`);
  for (const doc of txDocs) {
    const src = posted.get(doc.transactionId);
    if (!src) problems.push(`transaction ${doc.transactionId} shown but never posted`);
    else if (JSON.stringify(src.entries) !== JSON.stringify(doc.entries))
      problems.push(`transaction ${doc.transactionId} shown with other entries`);
  }

  // a platform account is the sum of its shards (views.ts AccountDoc)
  const shown = new Map<string, bigint>();
  for (const doc of await store.find<AccountDoc>(COLLECTIONS.accounts))
    shown.set(doc.accountId, (shown.get(doc.accountId) ?? 0n) + BigInt(doc.balanceCents));
  for (const [accountId, balance] of shown) {
    const sum = sums.get(accountId) ?? 0n;
    if (balance !== sum) problems.push(`account ${accountId} shows ${balance}, entries sum to ${sum}`);
  }
  for (const accountId of sums.keys())
    if (!shown.has(accountId)) problems.push(`account ${accountId} has entries but no balance`);

  const balances = await store.find<BalancesDoc>(COLLECTIONS.balances);
  for (const doc of balances) {
    for (const kind of USER_ACCOUNT_KINDS) {
      const shown = doc[FIELD[kind]] as number;
      const sum = sums.get(userAccount(doc.userId, kind)) ?? 0n;
      if (BigInt(shown) !== sum)
        problems.push(`user ${doc.userId} ${kind} shows ${shown}, entries sum to ${sum}`);
      if (shown < 0) problems.push(`user ${doc.userId} ${kind} is negative (${shown})`);
    }
  }
  const usersWithEntries = new Set(
    [...sums.keys()].filter((a) => a.startsWith('user:')).map((a) => a.slice(5, a.lastIndexOf(':'))),
  );
  const shownUsers = new Set(balances.map((b) => b.userId));
  for (const userId of usersWithEntries)
    if (!shownUsers.has(userId)) problems.push(`user ${userId} has entries but no balances`);
  return problems;
}

export async function expectLedgerInvariants(store: ServiceStore): Promise<void> {
  expect(await ledgerInvariantProblems(store)).toEqual([]);
}

/**
 * The ledger's own read models (balances, accounts, transactions, deposits) against their rebuild from its log
 * alone (rebuildReadModels), compared order-free: the problems found (none: they match). It rebuilds in place,
 * so give it a copy of a running ledger's store.
 */
export async function readModelRebuildProblems(store: ServiceStore): Promise<string[]> {
  const own = Object.fromEntries(
    [COLLECTIONS.balances, COLLECTIONS.accounts, COLLECTIONS.transactions, COLLECTIONS.deposits].map((c) => [
      c,
      ID_FIELDS[c],
    ]),
  );
  const before = await snapshotCollections(store, own);
  await rebuildReadModels(store);
  const after = await snapshotCollections(store, own);
  const problems: string[] = [];
  for (const c of Object.keys(own)) {
    const was = new Set(before[c]!.map((d) => JSON.stringify(d)));
    const is = new Set(after[c]!.map((d) => JSON.stringify(d)));
    const missing = [...is].filter((d) => !was.has(d));
    const extra = [...was].filter((d) => !is.has(d));
    if (missing.length > 0 || extra.length > 0)
      problems.push(
        `${c}: ${extra.length} document(s) the rebuild does not make, ${missing.length} it makes that were not there` +
          ` (first: ${(extra[0] ?? missing[0])!.slice(0, 200)})`,
      );
  }
  return problems;
}
