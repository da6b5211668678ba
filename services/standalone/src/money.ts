/**
 * The money services of the standalone target (issue 4): ledger, investment and withdrawal on loopback
 * gRPC, one SQLite file each under DATA_DIR, the shared in-process bus. Investment and withdrawal reach
 * the ledger over gRPC (PlaceHold / CaptureHold / ReleaseHold / SettleMaturity), as in the cluster.
 */
import type { Logger } from '@meridian/platform/logger';
import type { EventBus } from '@meridian/platform/ports/eventBus';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { parseLedgerConfig, start as startLedger, type LedgerHandle } from '@meridian/ledger';
import { parseInvestmentConfig, start as startInvestment, type InvestmentHandle } from '@meridian/investment';
import { parseWithdrawalConfig, start as startWithdrawal, type WithdrawalHandle } from '@meridian/withdrawal';

export interface MoneyServicesOptions {
  /** Process-manager sweep interval of investment and withdrawal (default theirs). */
  redriveIntervalMs?: number;
  /** The maturity scheduler's longest timer (default the investment service's). */
  maxTimerMs?: number;
}

export interface MoneyServices {
  ledger: LedgerHandle;
  investment: InvestmentHandle;
  withdrawal: WithdrawalHandle;
  /** The ledger's store (tests run the reconciliation check of @meridian/ledger/testing/invariants on it). */
  ledgerStore: ServiceStore;
  /** Resolves when everything the three services appended so far is on the bus. */
  flushOutboxes(timeoutMs?: number): Promise<void>;
}

export async function startMoneyServices(
  deps: {
    env: Record<string, string | undefined>;
    dataDir: string;
    storeFor(service: string): ServiceStore;
    kvFor(service: string): KeyValueStore;
    bus: EventBus;
    loggerFor(service: string): Logger;
    clock?: () => Date;
    onStop(name: string, fn: () => Promise<void> | void): void;
  } & MoneyServicesOptions,
): Promise<MoneyServices> {
  const { env, dataDir, bus } = deps;
  const ledgerConfig = parseLedgerConfig({
    ...env,
    DATA_DIR: dataDir,
    LEDGER_GRPC_ADDR: env.LEDGER_GRPC_ADDR ?? '127.0.0.1:0',
  });
  const ledgerStore = deps.storeFor('ledger');
  const ledger = await startLedger({
    config: ledgerConfig,
    store: ledgerStore,
    bus,
    kv: deps.kvFor('ledger'),
    logger: deps.loggerFor('ledger'),
    clock: deps.clock,
  });
  deps.onStop('ledger', () => ledger.stop());

  const investment = await startInvestment({
    config: parseInvestmentConfig({
      ...env,
      DATA_DIR: dataDir,
      INVESTMENT_GRPC_ADDR: env.INVESTMENT_GRPC_ADDR ?? '127.0.0.1:0',
      LEDGER_GRPC_URL: ledger.grpcAddress,
    }),
    store: deps.storeFor('investment'),
    bus,
    kv: deps.kvFor('investment'),
    logger: deps.loggerFor('investment'),
    clock: deps.clock,
    redriveIntervalMs: deps.redriveIntervalMs,
    maxTimerMs: deps.maxTimerMs,
  });
  deps.onStop('investment', () => investment.stop());

  const withdrawal = await startWithdrawal({
    config: parseWithdrawalConfig({
      ...env,
      DATA_DIR: dataDir,
      WITHDRAWAL_GRPC_ADDR: env.WITHDRAWAL_GRPC_ADDR ?? '127.0.0.1:0',
      LEDGER_GRPC_URL: ledger.grpcAddress,
    }),
    store: deps.storeFor('withdrawal'),
    bus,
    kv: deps.kvFor('withdrawal'),
    logger: deps.loggerFor('withdrawal'),
    clock: deps.clock,
    redriveIntervalMs: deps.redriveIntervalMs,
  });
  deps.onStop('withdrawal', () => withdrawal.stop());

  return {
    ledger,
    investment,
    withdrawal,
    ledgerStore,
    async flushOutboxes(timeoutMs) {
      await Promise.all([
        ledger.flushOutbox(timeoutMs),
        investment.flushOutbox(timeoutMs),
        withdrawal.flushOutbox(timeoutMs),
      ]);
    },
  };
}
