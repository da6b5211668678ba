/**
 * Read models of the ledger, written in the same transaction as the events they come from (see
 * app/project.ts). Pure: each function turns the current document and one stored event into the next
 * document; the queries below read them.
 *
 * | collection      | id            | from                                   |
 * |-----------------|---------------|----------------------------------------|
 * | balances        | userId        | BalancesChanged (latest per user)      |
 * | accounts        | accountId     | TransactionPosted (sum of entries)     |
 * | transactions    | transactionId | TransactionPosted                      |
 * | deposits        | depositId     | DepositRequested / Confirmed / Rejected|
 * | users           | userId        | identity's UserRegistered (directory)  |
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { Scalar, StoreReads } from '@meridian/platform/ports/serviceStore';
import type { BalancesChanged, LedgerEntry, LedgerReason, TransactionPosted } from '../domain/account.js';
import type { DepositEvent, DepositStatus } from '../domain/deposit.js';
import type { Cents } from '@meridian/platform/money/money';

export const COLLECTIONS = {
  balances: 'balances',
  accounts: 'accounts',
  transactions: 'transactions',
  deposits: 'deposits',
  users: 'users',
} as const;

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

export type AccountDoc = { accountId: string; balanceCents: Cents; entries: number };

export type TransactionDoc = {
  transactionId: string;
  userId: string;
  idempotencyKey: string;
  reason: LedgerReason;
  memo: string;
  entries: LedgerEntry[];
  postedAt: string;
  depositId: string | null;
  investmentId: string | null;
  withdrawalId: string | null;
  holdId: string | null;
  adminId: string | null;
  refereeId: string | null;
  /** global log position (the order of the history) */
  position: number;
};

export type DepositDoc = {
  depositId: string;
  userId: string;
  amountCents: Cents;
  status: DepositStatus;
  notes: string;
  requestedAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  position: number;
};

export type UserDoc = {
  userId: string;
  name: string;
  email: string;
  referredBy: string | null;
  registeredAt: string;
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
  const d = event.data;
  return {
    userId: d.userId,
    depositCents: d.depositCents,
    investedCents: d.investedCents,
    profitCents: d.profitCents,
    withdrawalHoldCents: d.withdrawalHoldCents,
    investmentHoldCents: d.investmentHoldCents,
    version: event.version,
    updatedAt: event.occurredAt,
  };
}

export function projectAccount(doc: AccountDoc | null, entry: LedgerEntry): AccountDoc {
  return {
    accountId: entry.accountId,
    balanceCents: (doc?.balanceCents ?? 0) + entry.amountCents,
    entries: (doc?.entries ?? 0) + 1,
  };
}

export function projectTransaction(event: StoredEvent<TransactionPosted>): TransactionDoc {
  const t = event.data;
  return {
    transactionId: t.transactionId,
    userId: t.userId,
    idempotencyKey: t.idempotencyKey,
    reason: t.reason,
    memo: t.memo,
    entries: t.entries,
    postedAt: t.postedAt,
    depositId: t.references.depositId ?? null,
    investmentId: t.references.investmentId ?? null,
    withdrawalId: t.references.withdrawalId ?? null,
    holdId: t.references.holdId ?? null,
    adminId: t.references.adminId ?? null,
    refereeId: t.references.refereeId ?? null,
    position: event.position,
  };
}

export function projectDeposit(doc: DepositDoc | null, event: StoredEvent<DepositEvent>): DepositDoc | null {
  const e = event as StoredEvent<DepositEvent> & DepositEvent;
  switch (e.type) {
    case 'DepositRequested':
      return (
        doc ?? {
          depositId: e.data.depositId,
          userId: e.data.userId,
          amountCents: e.data.amountCents,
          status: 'Pending',
          notes: '',
          requestedAt: e.data.requestedAt,
          decidedAt: null,
          decidedBy: null,
          position: event.position,
        }
      );
    case 'DepositConfirmed':
      return (
        doc && {
          ...doc,
          status: 'Confirmed',
          notes: e.data.notes,
          decidedAt: e.data.confirmedAt,
          decidedBy: e.data.confirmedBy,
        }
      );
    case 'DepositRejected':
      return (
        doc && {
          ...doc,
          status: 'Rejected',
          notes: e.data.notes,
          decidedAt: e.data.rejectedAt,
          decidedBy: e.data.rejectedBy,
        }
      );
    default: {
      const _exhaustive: never = e;
      return doc;
    }
  }
}

export function projectUser(
  doc: UserDoc | null,
  data: { userId: string; name?: string; email?: string; referredBy?: string; registeredAt?: string },
): UserDoc {
  return {
    userId: data.userId,
    name: data.name ?? doc?.name ?? '',
    email: data.email ?? doc?.email ?? '',
    referredBy: data.referredBy || doc?.referredBy || null,
    registeredAt: data.registeredAt ?? doc?.registeredAt ?? '',
  };
}

// ---------- queries ----------

export async function balancesOf(reads: StoreReads, userId: string): Promise<BalancesDoc> {
  return (await reads.get<BalancesDoc>(COLLECTIONS.balances, userId)) ?? zeroBalances(userId);
}

export const depositById = (reads: StoreReads, depositId: string) =>
  reads.get<DepositDoc>(COLLECTIONS.deposits, depositId);

export const pendingDeposits = (reads: StoreReads) =>
  reads.find<DepositDoc>(COLLECTIONS.deposits, {
    where: { status: 'Pending' },
    orderBy: { field: 'position', direction: 'asc' },
  });

export const depositsOfUser = (reads: StoreReads, userId: string) =>
  reads.find<DepositDoc>(COLLECTIONS.deposits, {
    where: { userId },
    orderBy: { field: 'position', direction: 'desc' },
  });

export async function transactionsOfUser(
  reads: StoreReads,
  userId: string,
  page: { limit: number; offset: number },
): Promise<{ items: TransactionDoc[]; total: number }> {
  const where: Record<string, Scalar> = { userId };
  const [items, total] = await Promise.all([
    reads.find<TransactionDoc>(COLLECTIONS.transactions, {
      where,
      orderBy: { field: 'position', direction: 'desc' },
      ...page,
    }),
    reads.count(COLLECTIONS.transactions, where),
  ]);
  return { items, total };
}

export const userById = (reads: StoreReads, userId: string) => reads.get<UserDoc>(COLLECTIONS.users, userId);
