/**
 * The ledger's two aggregates as the command path sees them: read the state -> decide -> append with the
 * version read (optimistic concurrency) -> project the new events in the same transaction.
 *
 * A user's ledger (`ledger-<userId>`) is loaded in O(1), whatever the length of its stream (architecture.md
 * §9, "the ledger's state row"): the small part of the state (balances, counters, referrer) is a row of
 * `ledger_state` carrying the stream version it is at, and every keyed fact (idempotency keys, holds,
 * deposits credited, investments settled, bonuses paid) is its own row of `ledger_facts`; both are written
 * in the transaction that appends the events. A command loads the row and the few facts its keys name,
 * decides, and appends with the row's version as the expected version. A stream the rows do not cover
 * (written before them) is folded once from its events and the rows are written then; a row found behind
 * its stream (the append's version check says so) is rebuilt the same way.
 *
 * The hash chain (docs/statements.md): the postings a command decides are linked after the state's chain
 * head (`withChainLinks`: seq, prevHash, hash on each TransactionPosted) before they are appended, and the
 * row keeps the new head. A row without a head (written before the chain) counts as no row: the stream is
 * folded once, which links its older postings from genesis.
 */
import { type CommandStream, type SnapshotHooks, handleCommand } from '@meridian/platform/app/commandHandler';
import { domainEventOf, type EventMeta } from '@meridian/platform/eventSourcing/types';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  type CoreState,
  FACT_KINDS,
  type FactKey,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
  accountDecider,
  balancesChanged,
  changedFacts,
  coreOf,
  factKeysOf,
  foldLedger,
  initialState,
  stateOf,
  toAccountStreamId,
  withChainLinks,
} from '../domain/account.js';
import {
  type DepositCommand,
  type DepositEvent,
  type DepositState,
  depositDecider,
  toDepositStreamId,
} from '../domain/deposit.js';
import { project } from './project.js';

/** The write side's own rows (not read models: never dropped by a rebuild). */
export const STATE_COLLECTIONS = { state: 'ledger_state', facts: 'ledger_facts' } as const;

type StateRow = { userId: string; version: number; core: CoreState };
/** `status`: a hold's, at the top level so holds can be counted by it. */
type FactRow = {
  id: string;
  userId: string;
  kind: FactKey['kind'];
  key: string;
  value: unknown;
  status?: string;
};

const factId = (userId: string, f: FactKey) => `${userId}|${f.kind}|${f.key}`;

const DEPOSIT_STREAM: CommandStream<DepositCommand, DepositEvent, DepositState> = {
  decider: depositDecider,
  streamIdOf: toDepositStreamId,
  project,
};

/** The whole stream folded (no rows, or rows behind it). */
async function foldStream(
  reads: StoreReads,
  userId: string,
): Promise<{ version: number; state: LedgerState }> {
  const { version, events } = await reads.readStream<LedgerEvent>(toAccountStreamId(userId));
  return { version, state: foldLedger(events.map(domainEventOf), initialState()) };
}

async function writeRows(
  tx: StoreTx,
  userId: string,
  version: number,
  before: LedgerState,
  after: LedgerState,
): Promise<void> {
  await tx.put<StateRow>(STATE_COLLECTIONS.state, userId, { userId, version, core: coreOf(after) });
  for (const f of changedFacts(before, after)) await putFact(tx, factId(userId, f), userId, f);
}

function putFact(tx: StoreTx, id: string, userId: string, f: FactKey & { value: unknown }): Promise<void> {
  const status = f.kind === 'holds' ? (f.value as { status: string }).status : undefined;
  return tx.put<FactRow>(STATE_COLLECTIONS.facts, id, {
    id,
    userId,
    kind: f.kind,
    key: f.key,
    value: f.value,
    ...(status ? { status } : {}),
  });
}

type Loaded = { version: number; state: LedgerState; rows: 'current' | 'none' };

/** The state `keys` need: the row and those facts, or (no row) the stream folded whole. */
async function loadFor(reads: StoreReads, userId: string, keys: readonly FactKey[]): Promise<Loaded> {
  const row = await reads.get<StateRow>(STATE_COLLECTIONS.state, userId);
  // no row, or a row written before the hash chain (no link in it): the stream folded whole, once
  if (!row || !row.core.chain) return { ...(await foldStream(reads, userId)), rows: 'none' };
  const rows = await reads.getMany<FactRow>(
    STATE_COLLECTIONS.facts,
    keys.map((k) => factId(userId, k)),
  );
  const found: Array<FactKey & { value: unknown }> = [];
  rows.forEach((fact, i) => {
    if (fact) found.push({ ...keys[i], value: fact.value });
  });
  return { version: row.version, state: stateOf(row.core, found), rows: 'current' };
}

/** The whole ledger state of a user (diagnostics, tests): the stream folded. */
export const loadLedger = (
  reads: StoreReads,
  userId: string,
): Promise<{ state: LedgerState; version: number }> => foldStream(reads, userId);

/** One fact of a user's ledger, read from its row (O(1)); falls back to the stream when there are no rows. */
export async function ledgerStateFor(
  reads: StoreReads,
  userId: string,
  keys: readonly FactKey[],
): Promise<LedgerState> {
  return (await loadFor(reads, userId, keys)).state;
}

/** Holds placed and not yet captured or released (the rows'; a stream without rows yet is not counted). */
export const openHoldsCount = (reads: StoreReads): Promise<number> =>
  reads.count(STATE_COLLECTIONS.facts, { kind: 'holds', status: 'held' });

/** Load (row + the command's facts), write the rows after the append, and link postings into the chain. */
const LEDGER_SNAPSHOT: SnapshotHooks<LedgerCommand, LedgerState> = {
  load: async (reads, userId, commands) => {
    const { rows, ...loaded } = await loadFor(reads, userId, commands.flatMap(factKeysOf));
    return { ...loaded, fromSnapshot: rows === 'current' };
  },
  save: writeRows,
};

/**
 * A user's ledger (`ledger-<userId>`, id = the user's id) for `handleCommand`: load (row + the command's
 * facts) -> decide -> link the postings into the user's hash chain after the state's last link
 * (domain/account/chain.ts) -> append (expected version = the row's) -> project -> rows. A batch
 * (`handleCommands`, such as the close-of-business maturities) appends each posting with its own key and
 * chain link, and ONE BalancesChanged at the end: the balances after its last posting.
 */
export const LEDGER_STREAM: CommandStream<LedgerCommand, LedgerEvent, LedgerState> = {
  decider: accountDecider,
  streamIdOf: toAccountStreamId,
  fold: foldLedger,
  project: (tx, events) => project(tx, events),
  link: (decided, state) => withChainLinks(decided, state.chain),
  coalesce: (decided, after) => {
    const events = decided.filter((e) => e.type !== 'BalancesChanged');
    const last = events.findLast((e) => e.type === 'TransactionPosted');
    return last ? [...events, balancesChanged(after, last.data.transactionId)] : events;
  },
  snapshot: LEDGER_SNAPSHOT,
  // a batch item decided on the core and its own facts: a state as small as a single command's
  batch: {
    open: (state) => foldLedger([], state),
    scope: (running, reads) =>
      stateOf(
        coreOf(running),
        reads.flatMap(factKeysOf).flatMap((k) => {
          const facts = running[k.kind] as Record<string, unknown>;
          return Object.hasOwn(facts, k.key) ? [{ ...k, value: facts[k.key] }] : [];
        }),
      ),
    absorb: (running, scoped, decided) => {
      for (const f of changedFacts(scoped, decided))
        (running[f.kind] as Record<string, unknown>)[f.key] = f.value;
      const next = stateOf(coreOf(decided), []);
      for (const kind of FACT_KINDS) Object.assign(next, { [kind]: running[kind] });
      return next;
    },
  },
};

export const executeDeposit = (tx: StoreTx, depositId: string, command: DepositCommand, meta: EventMeta) =>
  handleCommand(tx, DEPOSIT_STREAM, depositId, command, meta);
