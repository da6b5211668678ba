/**
 * Verifiable statements (docs/statements.md): a user's account statement for a period, built from
 * the transactions read model with each transaction's link in the user's hash chain, and the admin's
 * verification of the whole ledger (`VerifyLedger`, `make verify-ledger`): every user's chain recomputed
 * from genesis out of the event log and compared with the links stored on the events, the transactions read
 * model, the balances read models and the state rows.
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { ServiceStore, StoreReads } from '@meridian/platform/ports/serviceStore';
import {
  GENESIS_HASH,
  STATEMENT_FORMAT,
  type Statement,
  type StatementAccount,
  type StatementEntry,
  formatCents,
  parseStatementInstant,
  statementMonthStart,
} from 'meridian-verify';
import {
  type ChainFields,
  type ChainLink,
  GENESIS,
  type LedgerEvent,
  type TransactionPosted,
  USER_ACCOUNT_KINDS,
  type UserAccountKind,
  linkOf,
  parseAccountId,
  storedOrComputedLink,
  toAccountStreamId,
  userAccount,
} from '../domain/account.js';
import {
  type AccountDoc,
  type BalancesDoc,
  COLLECTIONS,
  type TransactionDoc,
  transactionsOfUserInOrder,
} from '../projections/views.js';
import {
  type Actor,
  type LedgerContext,
  requireActor,
  requireAdmin,
  requireOwnerOrAdmin,
} from './context.js';
import { STATE_COLLECTIONS } from './streams.js';

export const STATEMENT_MESSAGES = {
  badFrom: 'from must be an ISO-8601 date or time',
  badTo: 'to must be an ISO-8601 date or time',
  fromAfterTo: 'from must not be after to',
} as const;

/**
 * The period of a statement: defaults (from = the first day of the month of `now`, UTC; to = now) and rules.
 * Any length: the gateway bounds what an investor may ask for at once (an admin's tools may ask for all).
 */
export function statementPeriod(input: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const from = input.from ? parseStatementInstant(input.from, 'from') : statementMonthStart(now);
  if (!from) throw invalid(STATEMENT_MESSAGES.badFrom);
  const to = input.to ? parseStatementInstant(input.to, 'to') : now;
  if (!to) throw invalid(STATEMENT_MESSAGES.badTo);
  if (from.getTime() > to.getTime()) throw invalid(STATEMENT_MESSAGES.fromAfterTo);
  return { from, to };
}

const linkedDoc = (doc: TransactionDoc): doc is TransactionDoc & ChainFields =>
  typeof doc.hash === 'string' && typeof doc.seq === 'number' && typeof doc.prevHash === 'string';

/**
 * The links of a user's transactions as the stream has them (stored on the events, or computed for events
 * stored before the chain), by transaction id.
 */
export async function chainOfStream(reads: StoreReads, userId: string): Promise<Map<string, ChainFields>> {
  const { events } = await reads.readStream<LedgerEvent>(toAccountStreamId(userId));
  const links = new Map<string, ChainFields>();
  let prev: ChainLink = GENESIS;
  for (const e of events) {
    if (e.type !== 'TransactionPosted') continue;
    const data = e.data as TransactionPosted['data'];
    const link = storedOrComputedLink(data, prev);
    links.set(data.transactionId, link);
    prev = { seq: link.seq, hash: link.hash };
  }
  return links;
}

/**
 * Every transaction document of a user, oldest first, each with its link. Documents projected before the
 * chain existed have none: their links are computed from the stream then, and written onto them (once).
 */
async function linkedTransactions(
  store: ServiceStore,
  userId: string,
): Promise<Array<TransactionDoc & ChainFields>> {
  const docs: TransactionDoc[] = [];
  for await (const doc of transactionsOfUserInOrder(store, userId)) docs.push(doc);
  if (docs.every(linkedDoc)) return docs;
  return store.transaction(async (tx) => {
    const links = await chainOfStream(tx, userId);
    const out: Array<TransactionDoc & ChainFields> = [];
    for (const doc of docs) {
      if (linkedDoc(doc)) {
        out.push(doc);
        continue;
      }
      const link = links.get(doc.transactionId);
      if (!link) throw new Error(`Transaction ${doc.transactionId} is not in the stream of user ${userId}`);
      const linked = { ...doc, ...link };
      await tx.put(COLLECTIONS.transactions, doc.transactionId, linked);
      out.push(linked);
    }
    return out;
  });
}

const zeroByKind = (): Record<UserAccountKind, number> =>
  Object.fromEntries(USER_ACCOUNT_KINDS.map((k) => [k, 0])) as Record<UserAccountKind, number>;

function addUserPostings(sums: Record<UserAccountKind, number>, userId: string, doc: TransactionDoc): void {
  for (const entry of doc.entries) {
    const account = parseAccountId(entry.accountId);
    if (account?.owner === 'user' && account.userId === userId) sums[account.kind] += entry.amountCents;
  }
}

const entryOf = (doc: TransactionDoc & ChainFields): StatementEntry => ({
  seq: doc.seq,
  transactionId: doc.transactionId,
  postedAt: doc.postedAt,
  reason: doc.reason,
  memo: doc.memo,
  postings: doc.entries.map(({ accountId, amountCents }) => ({ accountId, amountCents })),
  prevHash: doc.prevHash,
  hash: doc.hash,
});

/**
 * The statement of `userId` for [from, to] (docs/statements.md): the transactions posted in the period (a
 * run of consecutive links), the link before them, every user account's balance before and after them.
 */
export async function buildStatement(
  store: ServiceStore,
  input: { userId: string; from: Date; to: Date; generatedAt: Date },
): Promise<Statement> {
  const { userId } = input;
  const from = input.from.toISOString();
  const to = input.to.toISOString();
  const docs = await linkedTransactions(store, userId);
  // ISO-8601 instants of one format compare as text
  let start = docs.findIndex((d) => d.postedAt >= from);
  if (start < 0) start = docs.length;
  let end = start;
  while (end < docs.length && docs[end].postedAt <= to) end++;

  const opening = zeroByKind();
  for (const doc of docs.slice(0, start)) addUserPostings(opening, userId, doc);
  const closing = { ...opening };
  for (const doc of docs.slice(start, end)) addUserPostings(closing, userId, doc);

  const before = start > 0 ? docs[start - 1] : null;
  const openingLink: ChainLink = before
    ? { seq: before.seq, hash: before.hash }
    : { seq: 0, hash: GENESIS_HASH };
  const entries = docs.slice(start, end).map(entryOf);
  const last = entries[entries.length - 1];
  const accounts: StatementAccount[] = USER_ACCOUNT_KINDS.map((kind) => ({
    accountId: userAccount(userId, kind),
    kind,
    openingCents: opening[kind],
    closingCents: closing[kind],
  }));
  return {
    format: STATEMENT_FORMAT,
    userId,
    from,
    to,
    generatedAt: input.generatedAt.toISOString(),
    accounts,
    opening: openingLink,
    entries,
    head: last ? { seq: last.seq, hash: last.hash } : openingLink,
  };
}

/** GetStatement: the owner's or (an admin) anyone's statement for a period. */
export async function getStatement(
  ctx: LedgerContext,
  input: { actor: Actor; userId?: string; from?: string; to?: string },
): Promise<Statement> {
  const userId = input.userId || requireActor(input.actor).userId;
  requireOwnerOrAdmin(input.actor, userId);
  const now = ctx.clock();
  const { from, to } = statementPeriod(input, now);
  return buildStatement(ctx.store, { userId, from, to, generatedAt: now });
}

// ---------------------------------------------------------------- the whole ledger, verified

export type BrokenLink = {
  userId: string;
  /** The link's number in the user's chain (0 when the problem is not one link's). */
  seq: number;
  transactionId: string;
  problem: string;
};

export type LedgerVerification = {
  usersChecked: number;
  entriesChecked: number;
  intact: boolean;
  /** The first problem in log order (a user's balances and state row: after their last event). */
  firstBroken: BrokenLink | null;
};

type UserWalk = {
  chain: ChainLink;
  balances: Record<UserAccountKind, number>;
  lastTransactionId: string;
  /** The stream version the walk reached (the read models and the row are compared only at it). */
  version: number;
};

const sameEntries = (a: TransactionDoc['entries'], b: TransactionDoc['entries']) =>
  a.length === b.length &&
  a.every((e, i) => e.accountId === b[i].accountId && e.amountCents === b[i].amountCents);

/** What differs between a transaction event and its read-model document, or null. */
function documentProblem(
  doc: TransactionDoc | null,
  data: TransactionPosted['data'],
  link: ChainFields,
): string | null {
  if (!doc) return 'missing from the transactions read model';
  if (!sameEntries(doc.entries, data.entries)) {
    const diff = doc.entries.find((e, i) => e.amountCents !== data.entries[i]?.amountCents);
    const was = diff ? data.entries.find((e) => e.accountId === diff.accountId) : undefined;
    return diff && was
      ? `the transactions read model has ${formatCents(diff.amountCents)} on ${diff.accountId} where the event has ${formatCents(was.amountCents)}`
      : 'the transactions read model has other postings than the event';
  }
  for (const key of ['postedAt', 'reason', 'memo', 'userId'] as const)
    if (doc[key] !== data[key]) return `the transactions read model has another ${key} than the event`;
  if (linkedDoc(doc) && (doc.seq !== link.seq || doc.prevHash !== link.prevHash || doc.hash !== link.hash))
    return `the transactions read model has the link ${doc.seq}/${doc.hash.slice(0, 12)}… where the chain has ${link.seq}/${link.hash.slice(0, 12)}…`;
  return null;
}

/**
 * Walks the whole event log in order: every user's TransactionPosted events make their chain from genesis,
 * each link recomputed from the event's contents and compared with the link stored on it and with the
 * transactions read model; then each user's balances (read models) and state row against the chain's sums.
 * Returns the counts and the first broken link.
 */
export async function verifyLedgerStore(store: ServiceStore, pageSize = 1000): Promise<LedgerVerification> {
  const users = new Map<string, UserWalk>();
  let entriesChecked = 0;
  let firstBroken: BrokenLink | null = null;
  const broken = (b: BrokenLink) => {
    firstBroken ??= b;
  };

  for (let after = 0; ;) {
    const page = await store.readAll(after, pageSize);
    for (const event of page as StoredEvent[]) {
      if (!event.streamId.startsWith('ledger-')) continue;
      const userId = event.streamId.slice('ledger-'.length);
      let walk = users.get(userId);
      if (!walk)
        users.set(
          userId,
          (walk = { chain: GENESIS, balances: zeroByKind(), lastTransactionId: '', version: 0 }),
        );
      walk.version = event.version;
      if (event.type !== 'TransactionPosted') continue;
      const data = event.data as TransactionPosted['data'];
      const computed = linkOf(data, walk.chain);
      const at = { userId, seq: computed.seq, transactionId: data.transactionId };
      entriesChecked++;
      if (data.hash !== undefined) {
        if (data.seq !== computed.seq)
          broken({ ...at, problem: `the stored sequence number is ${data.seq}, expected ${computed.seq}` });
        else if (data.prevHash !== walk.chain.hash)
          broken({ ...at, problem: 'the stored previous hash does not link to the previous transaction' });
        else if (data.hash !== computed.hash)
          broken({
            ...at,
            problem: 'the stored hash does not match the transaction (its contents were changed)',
          });
      }
      if (data.userId !== userId) broken({ ...at, problem: `the transaction is for user ${data.userId}` });
      const doc = await store.get<TransactionDoc>(COLLECTIONS.transactions, data.transactionId);
      const docProblem = documentProblem(doc, data, computed);
      if (docProblem) broken({ ...at, problem: docProblem });
      for (const entry of data.entries) {
        const account = parseAccountId(entry.accountId);
        if (account?.owner === 'user' && account.userId === userId)
          walk.balances[account.kind] += entry.amountCents;
      }
      walk.chain = { seq: computed.seq, hash: computed.hash };
      walk.lastTransactionId = data.transactionId;
    }
    if (page.length < pageSize) break;
    after = page[page.length - 1].position;
  }

  for (const [userId, walk] of users) {
    if (walk.chain.seq === 0) continue; // no posting (a referrer link alone)
    const at = { userId, seq: walk.chain.seq, transactionId: walk.lastTransactionId };
    const b = await store.get<BalancesDoc>(COLLECTIONS.balances, userId);
    const row = await store.get<{ version: number; core: { chain?: ChainLink } }>(
      STATE_COLLECTIONS.state,
      userId,
    );
    // a user whose stream moved on while the log was read (a running ledger): their read models are newer
    if ((b?.version ?? 0) > walk.version || (row?.version ?? 0) > walk.version) continue;
    const shown: Record<UserAccountKind, number | undefined> = {
      deposit: b?.depositCents,
      invested: b?.investedCents,
      profit: b?.profitCents,
      withdrawal_hold: b?.withdrawalHoldCents,
      investment_hold: b?.investmentHoldCents,
    };
    for (const kind of USER_ACCOUNT_KINDS) {
      const sum = walk.balances[kind];
      if ((shown[kind] ?? 0) !== sum)
        broken({
          ...at,
          problem: `the ${kind} balance shown is ${formatCents(shown[kind] ?? 0)}, the chain's postings sum to ${formatCents(sum)}`,
        });
      const account = await store.get<AccountDoc>(COLLECTIONS.accounts, userAccount(userId, kind));
      if ((account?.balanceCents ?? 0) !== sum)
        broken({
          ...at,
          problem: `account ${userAccount(userId, kind)} is ${formatCents(account?.balanceCents ?? 0)} in the read model, the chain's postings sum to ${formatCents(sum)}`,
        });
    }
    const head = row?.core.chain;
    if (head && (head.seq !== walk.chain.seq || head.hash !== walk.chain.hash))
      broken({
        ...at,
        problem: `the state row's chain head is ${head.seq}/${head.hash.slice(0, 12)}…, the chain ends at ${walk.chain.seq}/${walk.chain.hash.slice(0, 12)}…`,
      });
  }

  const usersChecked = [...users.values()].filter((w) => w.chain.seq > 0).length;
  return { usersChecked, entriesChecked, intact: firstBroken === null, firstBroken };
}

/** VerifyLedger: admins only. */
export async function verifyLedger(ctx: LedgerContext, input: { actor: Actor }): Promise<LedgerVerification> {
  requireAdmin(input.actor);
  return verifyLedgerStore(ctx.store);
}
