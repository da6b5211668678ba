/**
 * Read models of the ledger, written in the same transaction as the events they come from (see
 * app/project.ts). Pure: each function turns the current document and one stored event into the next
 * document; the queries below read them.
 *
 * | collection      | id            | from                                   |
 * |-----------------|---------------|----------------------------------------|
 * | balances        | userId        | BalancesChanged (latest per user)      |
 * | accounts        | id            | TransactionPosted (sum of entries)     |
 * | transactions    | transactionId | TransactionPosted                      |
 * | deposits        | depositId     | DepositRequested / Confirmed / Rejected|
 * | users           | userId        | identity's UserRegistered, UserDeleted |
 */
import { pendingCount, type PendingCounter } from '@meridian/platform/ports/pendingCount';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { isAccountClosed } from '@meridian/platform/projections/closedAccounts';
import type { Scalar, StoreReads } from '@meridian/platform/ports/serviceStore';
import { findPage, type Page, type PageRequest } from '@meridian/platform/ports/pages';
import {
  type BalancesChanged,
  type ChainFields,
  LEDGER_REFERENCE_KEYS,
  type LedgerEntry,
  type LedgerReason,
  type LedgerReferenceKey,
  type LedgerReferences,
  type TransactionPosted,
} from '../domain/account.js';
import { type DepositEvent, type DepositState, evolve as evolveDeposit } from '../domain/deposit.js';
import type { Cents } from '@meridian/platform/money/money';

export const COLLECTIONS = {
  balances: 'balances',
  accounts: 'accounts',
  transactions: 'transactions',
  deposits: 'deposits',
  users: 'users',
} as const;
export type Collection = (typeof COLLECTIONS)[keyof typeof COLLECTIONS];

/** The field each collection's documents are keyed by. */
export const ID_FIELDS: Record<Collection, string> = {
  balances: 'userId',
  accounts: 'id',
  transactions: 'transactionId',
  deposits: 'depositId',
  users: 'userId',
};

export type BalancesDoc = {
  userId: string;
  depositCents: Cents;
  investedCents: Cents;
  profitCents: Cents;
  withdrawalHoldCents: Cents;
  investmentHoldCents: Cents;
  /** version of ledger-<userId> the balances are at */
  version: number;
  updatedAt: string;
};

/**
 * One account's balance. A user account is one document (id = accountId). A platform account (cash,
 * yield, referral, adjustment: every user's postings touch it) is PLATFORM_SHARDS documents
 * (id = `<accountId>#<shard>`, the shard chosen by the posting user's id), so no one document is written
 * by every posting; its balance is the sum of its shards (accountBalanceOf).
 */
export type AccountDoc = { id: string; accountId: string; balanceCents: Cents; entries: number };

export const PLATFORM_SHARDS = 16;

/** The shard of a platform account a user's postings go to (FNV-1a of the user id). */
export function platformShardOf(userId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) h = Math.imul(h ^ userId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % PLATFORM_SHARDS;
}

/** The document id an entry of `userId`'s transaction is summed into. */
export const accountDocId = (accountId: string, userId: string) =>
  accountId.startsWith('platform:') ? `${accountId}#${platformShardOf(userId)}` : accountId;

/** One column per reference of the transaction (null where it has none), so the history can be queried by them. */
export type ReferenceColumns = Record<LedgerReferenceKey, string | null>;

export type TransactionDoc = {
  transactionId: string;
  userId: string;
  idempotencyKey: string;
  reason: LedgerReason;
  memo: string;
  entries: LedgerEntry[];
  postedAt: string;
  /** global log position (the order of the history) */
  position: number;
} & ReferenceColumns &
  /**
   * Its link in the user's hash chain (domain/account/chain.ts). Absent only on a document projected before
   * the chain existed and not projected since (app/statements.ts computes those from the stream).
   */
  Partial<ChainFields>;

/**
 * The deposit as its stream has it, at the global log position of its request (the order of the lists),
 * with who created it when it was not its owner (an impersonating admin's id, from the first event's
 * actor; absent otherwise).
 */
export type DepositDoc = Exclude<DepositState, { status: 'none' }> & {
  position: number;
  initiatedBy?: string;
};

export type UserDoc = {
  userId: string;
  /** name and email as identity's events carry them: sealed with the user's key (answers open them) */
  name: string;
  email: string;
  referredBy: string | null;
  registeredAt: string;
  /** when identity deleted the user (null: not deleted); the ledger keeps the entry for its history */
  deletedAt?: string | null;
};

export const zeroBalances = (userId: string): BalancesDoc => ({
  userId,
  depositCents: 0,
  investedCents: 0,
  profitCents: 0,
  withdrawalHoldCents: 0,
  investmentHoldCents: 0,
  version: 0,
  updatedAt: '',
});

/** The newest BalancesChanged wins (a redelivered older one never overwrites a newer one). */
export function projectBalances(doc: BalancesDoc | null, event: StoredEvent<BalancesChanged>): BalancesDoc {
  if (doc && doc.version >= event.version) return doc;
  const { transactionId: _transactionId, ...balances } = event.data;
  return { ...balances, version: event.version, updatedAt: event.occurredAt };
}

export function projectAccount(doc: AccountDoc | null, entry: LedgerEntry, userId: string): AccountDoc {
  return {
    id: accountDocId(entry.accountId, userId),
    accountId: entry.accountId,
    balanceCents: (doc?.balanceCents ?? 0) + entry.amountCents,
    entries: (doc?.entries ?? 0) + 1,
  };
}

export const referenceColumns = (references: LedgerReferences): ReferenceColumns =>
  Object.fromEntries(LEDGER_REFERENCE_KEYS.map((k) => [k, references[k] ?? null])) as ReferenceColumns;

/** The references of a transaction document (its non-null reference columns). */
export const referencesOf = (doc: ReferenceColumns): LedgerReferences =>
  Object.fromEntries(LEDGER_REFERENCE_KEYS.flatMap((k) => (doc[k] ? [[k, doc[k]]] : [])));

/** `link`: the transaction's link in the user's chain (the event's own, or computed for an older event). */
export function projectTransaction(event: StoredEvent<TransactionPosted>, link: ChainFields): TransactionDoc {
  const t = event.data;
  return {
    transactionId: t.transactionId,
    userId: t.userId,
    idempotencyKey: t.idempotencyKey,
    reason: t.reason,
    memo: t.memo,
    entries: t.entries,
    postedAt: t.postedAt,
    ...referenceColumns(t.references),
    position: event.position,
    seq: link.seq,
    prevHash: link.prevHash,
    hash: link.hash,
  };
}

/** The deposit's own evolve over the document; the position and the initiator are the request's. */
export function projectDeposit(doc: DepositDoc | null, event: StoredEvent<DepositEvent>): DepositDoc | null {
  const next = evolveDeposit(doc ?? { status: 'none' }, event as DepositEvent);
  if (next.status === 'none') return null;
  const initiatedBy = doc ? doc.initiatedBy : event.actor?.impersonatorId;
  return { ...next, ...(initiatedBy ? { initiatedBy } : {}), position: doc?.position ?? event.position };
}

export function projectUser(
  doc: UserDoc | null,
  data: {
    userId: string;
    name?: string;
    email?: string;
    referredBy?: string;
    registeredAt?: string;
    deletedAt?: string;
  },
): UserDoc {
  return {
    userId: data.userId,
    name: data.name ?? doc?.name ?? '',
    email: data.email ?? doc?.email ?? '',
    referredBy: data.referredBy || doc?.referredBy || null,
    registeredAt: data.registeredAt ?? doc?.registeredAt ?? '',
    deletedAt: data.deletedAt ?? doc?.deletedAt ?? null,
  };
}

// ---------- queries ----------

export async function balancesOf(reads: StoreReads, userId: string): Promise<BalancesDoc> {
  return (await reads.get<BalancesDoc>(COLLECTIONS.balances, userId)) ?? zeroBalances(userId);
}

export const depositById = (reads: StoreReads, depositId: string) =>
  reads.get<DepositDoc>(COLLECTIONS.deposits, depositId);

/**
 * The indexes the lists page on (platform ports/pages.ts keyset pages: the equality filters, then the order field,
 * then the id): the pending deposits queue, a user's deposits and a user's transactions, by position.
 */
export const LEDGER_INDEXES: ReadonlyArray<{ collection: string; fields: string[] }> = [
  { collection: COLLECTIONS.deposits, fields: ['status', 'position'] },
  { collection: COLLECTIONS.deposits, fields: ['userId', 'position'] },
  { collection: COLLECTIONS.transactions, fields: ['userId', 'position'] },
];

const depositId = (d: DepositDoc) => d.depositId;

/**
 * The admin queue's size: a counter of the Pending deposits (platform ports/pendingCount.ts), moved by the
 * projection (app/project.ts) in the transaction that moves a deposit into or out of Pending.
 */
export const PENDING_DEPOSITS: PendingCounter = {
  id: 'pending-deposits',
  collection: COLLECTIONS.deposits,
  where: { status: 'Pending' },
};

/** How many deposits wait in the admin queue (the counter; never a read of the queue). */
export const pendingDepositCount = (reads: StoreReads) => pendingCount(reads, PENDING_DEPOSITS);

/** The admin queue: Pending deposits, oldest request first; a page of it, or all of it (page null). */
export const pendingDeposits = (reads: StoreReads, page: PageRequest = null): Promise<Page<DepositDoc>> =>
  findPage<DepositDoc>(
    reads,
    COLLECTIONS.deposits,
    { where: { status: 'Pending' }, orderBy: { field: 'position', direction: 'asc' }, idOf: depositId },
    page,
  );

/** A user's deposits, newest first; a page of them, or all of them (page null). */
export const depositsOfUser = (
  reads: StoreReads,
  userId: string,
  page: PageRequest = null,
): Promise<Page<DepositDoc>> =>
  findPage<DepositDoc>(
    reads,
    COLLECTIONS.deposits,
    { where: { userId }, orderBy: { field: 'position', direction: 'desc' }, idOf: depositId },
    page,
  );

/**
 * A user's transactions, newest first, with their total: by offset (`offset` > 0, the older call), else a
 * keyset page (`page`: platform ports/pages.ts) with the next page's cursor.
 */
export async function transactionsOfUser(
  reads: StoreReads,
  userId: string,
  page: { limit: number; offset: number; after?: PageRequest },
): Promise<{ items: TransactionDoc[]; total: number; nextCursor: string }> {
  const where: Record<string, Scalar> = { userId };
  const orderBy = { field: 'position', direction: 'desc' } as const;
  const [found, total] = await Promise.all([
    page.offset > 0 && !page.after
      ? reads
          .find<TransactionDoc>(COLLECTIONS.transactions, {
            where,
            orderBy,
            limit: page.limit,
            offset: page.offset,
          })
          .then((items) => ({ items, nextCursor: '' }))
      : findPage<TransactionDoc>(
          reads,
          COLLECTIONS.transactions,
          { where, orderBy, idOf: (t) => t.transactionId },
          page.after ?? { limit: page.limit, after: null },
        ),
    reads.count(COLLECTIONS.transactions, where),
  ]);
  return { items: found.items, total, nextCursor: found.nextCursor };
}

/** The user's newest transaction document (the last link of their chain as projected), or null. */
export async function lastTransactionOfUser(
  reads: StoreReads,
  userId: string,
): Promise<TransactionDoc | null> {
  const [doc] = await reads.find<TransactionDoc>(COLLECTIONS.transactions, {
    where: { userId },
    orderBy: { field: 'position', direction: 'desc' },
    limit: 1,
  });
  return doc ?? null;
}

/** Every transaction document of a user, oldest first (stream order), read a page at a time. */
export async function* transactionsOfUserInOrder(
  reads: StoreReads,
  userId: string,
  pageSize = 1000,
): AsyncGenerator<TransactionDoc> {
  let after: { value: Scalar; id: string } | undefined;
  for (;;) {
    const page = await reads.find<TransactionDoc>(COLLECTIONS.transactions, {
      where: { userId },
      orderBy: { field: 'position', direction: 'asc' },
      limit: pageSize,
      ...(after ? { after } : {}),
    });
    yield* page;
    if (page.length < pageSize) return;
    const last = page[page.length - 1];
    after = { value: last.position, id: last.transactionId };
  }
}

/** An account's balance: its document, or the sum of its shards for a platform account. */
export async function accountBalanceOf(reads: StoreReads, accountId: string): Promise<Cents> {
  const docs = await reads.find<AccountDoc>(COLLECTIONS.accounts, { where: { accountId } });
  return docs.reduce((sum, d) => sum + d.balanceCents, 0);
}

export const userById = (reads: StoreReads, userId: string) => reads.get<UserDoc>(COLLECTIONS.users, userId);

/** Whether identity has told the ledger about this user, has not deleted them and their account is open. */
export const isLiveUser = async (reads: StoreReads, userId: string) => {
  const doc = await userById(reads, userId);
  return !!doc && !doc.deletedAt && !(await isAccountClosed(reads, userId));
};
