/**
 * The ledger's two aggregates as the platform's command handler sees them: read the stream -> decide
 * -> append with the version read (optimistic concurrency) -> project the new events in the same
 * transaction.
 */
import { type CommandStream, handleCommand, loadStream } from '@meridian/platform/app/commandHandler';
import type { EventMeta, StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { StoreReads, StoreTx } from '@meridian/platform/ports/serviceStore';
import {
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
  accountDecider,
  foldLedger,
  toAccountStreamId,
} from '../domain/account.js';
import {
  type DepositCommand,
  type DepositEvent,
  type DepositState,
  depositDecider,
  toDepositStreamId,
} from '../domain/deposit.js';
import { project } from './project.js';

const ACCOUNT_STREAM: CommandStream<LedgerCommand, LedgerEvent, LedgerState> = {
  decider: accountDecider,
  streamIdOf: toAccountStreamId,
  fold: foldLedger,
  project,
};

const DEPOSIT_STREAM: CommandStream<DepositCommand, DepositEvent, DepositState> = {
  decider: depositDecider,
  streamIdOf: toDepositStreamId,
  project,
};

export const loadLedger = (
  reads: StoreReads,
  userId: string,
): Promise<{ state: LedgerState; version: number }> => loadStream(reads, ACCOUNT_STREAM, userId);

export async function executeLedger(
  tx: StoreTx,
  command: LedgerCommand,
  meta: EventMeta,
): Promise<{ before: LedgerState; after: LedgerState; events: StoredEvent<LedgerEvent>[] }> {
  const { before, after, events } = await handleCommand(tx, ACCOUNT_STREAM, command.userId, command, meta);
  return { before, after, events };
}

export async function executeDeposit(
  tx: StoreTx,
  depositId: string,
  command: DepositCommand,
  meta: EventMeta,
): Promise<{ after: DepositState; events: StoredEvent<DepositEvent>[] }> {
  const { after, events } = await handleCommand(tx, DEPOSIT_STREAM, depositId, command, meta);
  return { after, events };
}
