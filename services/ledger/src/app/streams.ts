/**
 * The ledger's two aggregates as the platform's command handler sees them: read the stream -> decide
 * -> append with the version read (optimistic concurrency) -> project the new events in the same
 * transaction.
 */
import { type CommandStream, handleCommand, loadStream } from '@meridian/platform/app/commandHandler';
import type { EventMeta } from '@meridian/platform/eventSourcing/types';
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

export const executeLedger = (tx: StoreTx, command: LedgerCommand, meta: EventMeta) =>
  handleCommand(tx, ACCOUNT_STREAM, command.userId, command, meta);

export const executeDeposit = (tx: StoreTx, depositId: string, command: DepositCommand, meta: EventMeta) =>
  handleCommand(tx, DEPOSIT_STREAM, depositId, command, meta);
