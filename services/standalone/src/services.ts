/**
 * The seven services of the standalone target in one process, started in dependency order (the ledger
 * before investment and withdrawal, which reach it over gRPC as in the cluster): each listens on
 * loopback (a port the OS picks unless its *_GRPC_ADDR is set), keeps its own SQLite file under
 * DATA_DIR and its own key-value prefix, and shares the one in-process bus.
 */
import type { Logger } from '@meridian/platform/logger';
import type { EventBus } from '@meridian/platform/ports/eventBus';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { ServiceDeps, ServiceHandle } from '@meridian/platform/service';
import type { PersonalData } from '@meridian/platform/personalData';
import { parseIdentityConfig, start as startIdentity, type IdentityDeps } from '@meridian/identity';
import {
  parseNotificationConfig,
  start as startNotification,
  type NotificationHandle,
} from '@meridian/notification';
import { parseKycConfig, start as startKyc, type KycDeps, type KycHandle } from '@meridian/kyc';
import { parseLedgerConfig, start as startLedger, type LedgerHandle } from '@meridian/ledger';
import { parseInvestmentConfig, start as startInvestment, type InvestmentHandle } from '@meridian/investment';
import { parseWithdrawalConfig, start as startWithdrawal, type WithdrawalHandle } from '@meridian/withdrawal';
import { parseSupportConfig, start as startSupport, type SupportHandle } from '@meridian/support';

export interface ServicesOptions {
  /** Overrides for tests: identity's rate-limit budgets, a cheaper password hasher. */
  identity?: Pick<IdentityDeps, 'rateLimits' | 'passwordHasher'>;
  /** Overrides for tests: the kyc document store, the file size limit. */
  kyc?: Pick<KycDeps, 'documents' | 'maxFileBytes'>;
  /** Overrides for tests: the investment / withdrawal process-manager and scheduler timings. */
  money?: MoneyServicesOptions;
}

export interface MoneyServicesOptions {
  /** Process-manager sweep interval of investment and withdrawal (default theirs). */
  redriveIntervalMs?: number;
  /** The maturity scheduler's longest timer (default the investment service's). */
  maxTimerMs?: number;
}

/** The services that move money: the ledger and its callers. */
export interface MoneyServices {
  ledger: LedgerHandle;
  investment: InvestmentHandle;
  withdrawal: WithdrawalHandle;
  /** The ledger's store (tests run the reconciliation check of @meridian/ledger/testing/invariants on it). */
  ledgerStore: ServiceStore;
  /** Resolves when everything the three services appended so far is on the bus. */
  flushOutboxes(timeoutMs?: number): Promise<void>;
}

/** Every service's config, parsed before anything opens (a bad variable stops the start at once). */
export type ServiceConfigs = ReturnType<typeof parseServiceConfigs>;

export function parseServiceConfigs(
  env: Record<string, string | undefined>,
  dataDir: string,
  /** Where kyc keeps its documents and support its attachments (default dataDir). */
  kycDataDir = dataDir,
) {
  /** The env, the data under dataDir, `listen` on loopback unless set, then `fixed`. */
  const configOf = <C>(
    parse: (source: Record<string, string | undefined>) => C,
    listen: string[],
    fixed: Record<string, string> = {},
  ): C =>
    parse({
      ...env,
      DATA_DIR: dataDir,
      ...Object.fromEntries(listen.map((variable) => [variable, env[variable] ?? '127.0.0.1:0'])),
      ...fixed,
    });
  return {
    identity: configOf(parseIdentityConfig, ['IDENTITY_GRPC_ADDR']),
    notification: configOf(parseNotificationConfig, ['NOTIFICATION_GRPC_ADDR']),
    kyc: configOf(parseKycConfig, ['KYC_GRPC_ADDR', 'KYC_HTTP_ADDR'], { DATA_DIR: kycDataDir }),
    ledger: configOf(parseLedgerConfig, ['LEDGER_GRPC_ADDR']),
    // LEDGER_GRPC_URL: the ledger's address once it listens
    investment: configOf(parseInvestmentConfig, ['INVESTMENT_GRPC_ADDR']),
    withdrawal: configOf(parseWithdrawalConfig, ['WITHDRAWAL_GRPC_ADDR']),
    support: configOf(parseSupportConfig, ['SUPPORT_GRPC_ADDR'], { DATA_DIR: kycDataDir }),
  };
}

export interface Services {
  identity: ServiceHandle;
  notification: NotificationHandle;
  kyc: KycHandle;
  money: MoneyServices;
  support: SupportHandle;
}

export async function startServices(
  deps: {
    configs: ServiceConfigs;
    storeFor(service: string): ServiceStore;
    kvFor(service: string): KeyValueStore;
    bus: EventBus;
    loggerFor(service: string): Logger;
    clock?: () => Date;
    /** ONE for every service: identity's key vault, shared in-process (crypto-shredding). */
    personalData: PersonalData;
    onStop(name: string, fn: () => Promise<void> | void): void;
  } & ServicesOptions,
): Promise<Services> {
  const { configs, bus, clock } = deps;
  /** Starts a service on its own store and key-value prefix and the shared bus; stopped with the rest. */
  const run = async <H extends ServiceHandle>(
    service: string,
    start: (common: Omit<ServiceDeps<unknown>, 'config'>) => Promise<H>,
  ): Promise<H> => {
    const store = deps.storeFor(service);
    const handle = await start({
      store,
      bus,
      kv: deps.kvFor(service),
      logger: deps.loggerFor(service),
      clock,
      personalData: deps.personalData,
    });
    deps.onStop(service, () => handle.stop());
    return handle;
  };

  const identity = await run('identity', (common) =>
    startIdentity({ ...common, config: configs.identity, ...deps.identity }),
  );
  const notification = await run('notification', (common) =>
    startNotification({ ...common, config: configs.notification }),
  );
  const kyc = await run('kyc', (common) => startKyc({ ...common, config: configs.kyc, ...deps.kyc }));

  let ledgerStore!: ServiceStore;
  const ledger = await run('ledger', (common) => {
    ledgerStore = common.store;
    return startLedger({ ...common, config: configs.ledger });
  });
  const LEDGER_GRPC_URL = ledger.grpcAddress;
  const investment = await run('investment', (common) =>
    startInvestment({ ...common, config: { ...configs.investment, LEDGER_GRPC_URL }, ...deps.money }),
  );
  const withdrawal = await run('withdrawal', (common) =>
    startWithdrawal({
      ...common,
      config: { ...configs.withdrawal, LEDGER_GRPC_URL },
      redriveIntervalMs: deps.money?.redriveIntervalMs,
    }),
  );

  const support = await run('support', (common) => startSupport({ ...common, config: configs.support }));

  return {
    identity,
    notification,
    kyc,
    support,
    money: {
      ledger,
      investment,
      withdrawal,
      ledgerStore,
      async flushOutboxes(timeoutMs) {
        await Promise.all([ledger, investment, withdrawal].map((s) => s.flushOutbox(timeoutMs)));
      },
    },
  };
}
