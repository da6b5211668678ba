/**
 * The command path of both aggregates, inside a transaction: read the stream -> decide -> append with
 * the version read (optimistic concurrency) -> project the new events in the same transaction.
 */
import type { EventMeta, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
  decide as decideLedger,
  foldLedger,
  toAccountStreamId,
} from '../domain/account.js';
import {
  type DepositCommand,
  type DepositEvent,
  type DepositState,
  decide as decideDeposit,
  evolve as evolveDeposit,
  initialState as initialDeposit,
  toDepositStreamId,
} from '../domain/deposit.js';
import { project } from './project.js';

export async function loadLedger(reads: StoreReads, userId: string): Promise<{ state: LedgerState; version: number }> {
  const { version, events } = await reads.readStream<LedgerEvent>(toAccountStreamId(userId));
  return { version, state: foldLedger(events as unknown as LedgerEvent[]) };
}

export async function loadDeposit(reads: StoreReads, depositId: string): Promise<{ state: DepositState; version: number }> {
  const { version, events } = await reads.readStream<DepositEvent>(toDepositStreamId(depositId));
  return { version, state: (events as unknown as DepositEvent[]).reduce(evolveDeposit, initialDeposit()) };
}

export async function executeLedger(
  tx: StoreTx,
  command: LedgerCommand,
  meta: EventMeta,
): Promise<{ before: LedgerState; after: LedgerState; events: StoredEvent<LedgerEvent>[] }> {
  const { version, state } = await loadLedger(tx, command.userId);
  const produced = decideLedger(command, state);
  if (produced.length === 0) return { before: state, after: state, events: [] };
  const { events } = await tx.appendToStream(toAccountStreamId(command.userId), version, produced, meta);
  await project(tx, events);
  return { before: state, after: foldLedger(produced, state), events };
}

export async function executeDeposit(
  tx: StoreTx,
  depositId: string,
  command: DepositCommand,
  meta: EventMeta,
): Promise<{ after: DepositState; events: StoredEvent<DepositEvent>[] }> {
  const { version, state } = await loadDeposit(tx, depositId);
  const produced = decideDeposit(command, state);
  if (produced.length === 0) return { after: state, events: [] };
  const { events } = await tx.appendToStream(toDepositStreamId(depositId), version, produced, meta);
  await project(tx, events);
  return { after: produced.reduce(evolveDeposit, state), events };
}
