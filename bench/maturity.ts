/**
 * Maturity at volume: BENCH_MATURITIES (default 20,000, for a quick `make bench`; the
 * goal's figure is BENCH_MATURITIES=100000, whose seeding alone takes minutes) due investments settled by the
 * investment service's batch pass (settleDueInBatches: one ledger SettleMaturities call per batch, the next
 * calls in flight while the batch before is recorded, each batch recorded in one store transaction, one append
 * per investment read from its document), against the one-at-a-time settlement (settleDue: per investment
 * its maturity, its ledger calls and its record) of BENCH_MATURITY_BASELINE (default 1,000) investments in
 * the same run. The anchor is Fineract's close-of-business batch.
 *
 * Two topologies, each measured whole (its own stores, seeding and baseline):
 * - services (the goal's figure): the ledger service as its own process, as docker-compose, Kubernetes and
 *   `make cluster` run it (its program, main.ts: SQLite file store, outbox relay, in-process bus file),
 *   reached over gRPC with mutual TLS by the investment side in this process, which presents the
 *   investment service's certificate;
 * - standalone: the same ledger service started in this process, as the standalone target runs it.
 * The investment side runs in this process on its own SQLite file store, recording its integration events
 * at append as the service's store does (withIntegrationEvents). The investments are seeded beforehand (not
 * timed): each investor funded by a deposit, each investment's hold placed and captured on the ledger (its
 * command path, a thousand to a transaction), each investment's events (requested, hold placed, approved,
 * hold captured; end date in the past) appended to its stream with its read model. After each run: every
 * investment Ended and settled, exactly one maturity posting per investment on the ledger, every
 * investor's Total Profit and Total Investment exact.
 */
import { benchText } from './config.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { withIntegrationEvents } from '@meridian/platform/app/integrationEvents';
import { createLogger } from '@meridian/platform/logger';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { createGrpcLedger } from '@meridian/ledger/client/ledgerPort.grpc';
import type { LedgerPort } from '@meridian/ledger/client/ledgerPort';
import { parseLedgerConfig } from '@meridian/ledger/config';
import { SERVICE as LEDGER_SERVICE, start as startLedger } from '@meridian/ledger';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { seedCapturedHolds } from '@meridian/ledger/testing/seedHolds';
import { type BalancesDoc, COLLECTIONS as LEDGER_COLLECTIONS } from '@meridian/ledger/projections/views';
import { personalDataOf } from '@meridian/platform/personalData';
import type { InvestmentContext } from '@meridian/investment/app/context';
import { toIntegrationEvent } from '@meridian/investment/app/integrationEvents';
import { settleDue, settleDueInBatches } from '@meridian/investment/app/investments';
import {
  type InvestmentCommand,
  type InvestmentEvent,
  type InvestmentState,
  investmentDecider,
} from '@meridian/investment/domain/investment';
import type { Plan } from '@meridian/investment/domain/plan';
import {
  COLLECTIONS,
  type InvestmentDoc,
  investmentView,
} from '@meridian/investment/projections/investmentView';
import { sleep, startBenchLedger, withMeshIdentities } from './children.js';
import { round } from './load.js';
import { threadCpuMs } from './logins.js';
import { table } from './table.js';

export interface MaturityRun {
  name: string;
  investments: number;
  seconds: number;
  perSecond: number;
  /** CPU seconds of this process (user + system) during the run: the figure a loaded machine moves least */
  cpuSeconds: number;
}
/** Where the ledger service runs: its own process (as deployed), or in this process (the standalone). */
export type MaturityTopology = 'services' | 'standalone';
export interface MaturityMeasured {
  topology: MaturityTopology;
  batch: MaturityRun;
  oneAtATime: MaturityRun;
  batchSize: number;
  /** the share of the batch pass's wall time with a SettleMaturities call in flight (the ledger had work) */
  ledgerShare: number;
  /** CPU seconds the ledger's own process used during the batch pass (services topology, Linux) */
  ledgerCpuSeconds?: number;
  /** batch settlements/s ÷ one-at-a-time settlements/s */
  speedup: number;
  /** the one-at-a-time rate's time for the batch's count, seconds */
  oneAtATimeProjectedSeconds: number;
  seedSeconds: number;
  /** the batch within 20 s */
  withinGoal: boolean;
  /** 100,000 at the batch's rate (measured when the run was 100,000; a projection otherwise, which
   *  flatters: the rate falls as the stores grow) */
  seconds100k: number;
  /** the one-at-a-time rate's time for 100,000, seconds */
  oneAtATimeSeconds100k: number;
}
/** The services topology (the goal's figure), with the standalone's beside it. */
export type MaturityBenchResult =
  { skipped: string } | (MaturityMeasured & { standalone?: MaturityMeasured | { skipped: string } });

const PLAN: Plan = {
  name: 'Bench',
  minAmountCents: 10_000,
  maxAmountCents: 100_000_000,
  rateBps: 1_000,
  durationMs: 60_000,
};
const PRINCIPAL_CENTS = 10_000;
const MATURITY_CENTS = 11_000;
const PER_INVESTOR = 100;
const SEED_TX = 1_000;

interface MaturityOptions {
  count: number;
  baseline: number;
  batchSize?: number;
  /** false: the services topology alone (BENCH_MATURITY_STANDALONE=0, for quicker runs of the goal's figure) */
  standalone?: boolean;
  log(line: string): void;
}

/** Both topologies, the services one first (the goal's figure). */
export async function benchMaturity(o: MaturityOptions): Promise<MaturityBenchResult> {
  o.log('  services: the ledger service in its own process');
  const services = await measureMaturity('services', o).catch((err: unknown) => ({
    skipped: err instanceof Error ? err.message : String(err),
  }));
  // (printMaturity says why a topology was not measured)
  let standalone: MaturityMeasured | { skipped: string } = {
    skipped: 'not measured (BENCH_MATURITY_STANDALONE=0)',
  };
  if (o.standalone !== false) {
    o.log('  standalone: the ledger service in this process');
    standalone = await measureMaturity('standalone', o).catch((err: unknown) => ({
      skipped: err instanceof Error ? err.message : String(err),
    }));
  }
  if ('skipped' in services) return services;
  return { ...services, standalone };
}

/** The ledger service as the investment side reaches it, and how it stops. */
interface LedgerTarget {
  port: LedgerPort;
  /** CPU seconds (user + system) of the ledger's own process so far (Linux /proc), when it has one */
  cpuSeconds?(): number | undefined;
  stop(): Promise<void>;
}

/** Until the ledger's outbox relay has published everything its store holds (5 minutes at most). */
async function relayCaughtUp(ledgerStore: ServiceStore): Promise<void> {
  const checkpoint = `outbox:${topicOf(LEDGER_SERVICE)}`;
  const deadline = Date.now() + 300_000;
  while ((await ledgerStore.getCheckpoint(checkpoint)) < (await ledgerStore.lastPosition())) {
    if (Date.now() > deadline) throw new Error("the ledger's outbox relay did not catch up in 5 minutes");
    await sleep(100);
  }
}

/** The ledger's program as its own process on `dir`'s files (startBenchLedger), reached over gRPC. */
async function ledgerProcess(dir: string, log: (line: string) => void): Promise<LedgerTarget> {
  const child = await startBenchLedger(dir, log);
  // as the investment service calls it in production: mutual TLS, with the investment service's certificate
  const port = withMeshIdentities(child.meshDir, ['investment'], () =>
    createGrpcLedger(child.address, { deadlineMs: 60_000, caller: 'investment' }),
  );
  return {
    port,
    cpuSeconds() {
      const { main, threads } = threadCpuMs(child.pid);
      return Number.isNaN(main) || Number.isNaN(threads) ? undefined : (main + threads) / 1000;
    },
    async stop() {
      port.close();
      await child.stop();
    },
  };
}

/** The ledger service started in this process on `store` (as the standalone target starts it). */
async function ledgerInProcess(dir: string, store: ServiceStore): Promise<LedgerTarget> {
  const bus = createInProcEventBus({ path: join(dir, 'bus.sqlite') });
  const service = await startLedger({
    config: parseLedgerConfig({ NODE_ENV: 'production', LEDGER_GRPC_ADDR: '127.0.0.1:0' }),
    store,
    bus,
    logger: createLogger('bench', { level: 'warn' }),
  });
  const port = createGrpcLedger(service.grpcAddress, { deadlineMs: 60_000 });
  return {
    port,
    async stop() {
      port.close();
      await service.stop();
      await bus.close();
    },
  };
}

async function measureMaturity(topology: MaturityTopology, o: MaturityOptions): Promise<MaturityMeasured> {
  const dir = mkdtempSync(join(tmpdir(), `meridian-bench-maturity-${topology}-`));
  const logger = createLogger('bench', { level: 'warn' });
  // the ledger's file as its program names it (DATA_DIR/ledger.sqlite): seeded here, then served
  const ledgerFile = join(dir, 'ledger.sqlite');
  const ledgerStore = createSqliteServiceStore(ledgerFile);
  /**
   * `fn` on the ledger's file: the open store (standalone), or (services) a connection opened for it and
   * closed after, so nothing of this process (its reads, its checkpoints) touches the file while the ledger
   * process works on it
   */
  let onLedger = <T>(fn: (store: ServiceStore) => Promise<T>): Promise<T> => fn(ledgerStore);
  const investmentFile = createSqliteServiceStore(join(dir, 'investment.sqlite'));
  // as the service's store: every append records its integration events (InvestmentMatured goes out)
  const investmentStore = withIntegrationEvents(investmentFile, toIntegrationEvent);
  let target: LedgerTarget | undefined;
  try {
    const tag = randomUUID().slice(0, 8);
    const oneSet = seededSet(`${tag}-one`, o.baseline);
    const batchSet = seededSet(`${tag}-batch`, o.count);
    // the ledger's side of both sets first (nothing asks for the batch set's until its run)
    let t0 = Date.now();
    await seedLedger(ledgerStore, oneSet);
    await seedLedger(ledgerStore, batchSet);
    await seedInvestments(investmentStore, oneSet);
    let seedSeconds = (Date.now() - t0) / 1000;
    if (topology === 'services') {
      await ledgerStore.close();
      target = await ledgerProcess(dir, o.log);
      onLedger = async (fn) => {
        const reader = createSqliteServiceStore(ledgerFile);
        try {
          return await fn(reader);
        } finally {
          await reader.close();
        }
      };
    } else {
      target = await ledgerInProcess(dir, ledgerStore);
    }
    // the seeding's events published by the ledger's relay before anything is timed
    await onLedger(relayCaughtUp);
    // the wall time with a SettleMaturities call in flight (calls overlap: counted once), i.e. the ledger
    // had a batch to settle; the rest of a batch pass is the investment side's scan and record alone
    let ledgerNs = 0n;
    let calls = 0;
    let since = 0n;
    const grpcPort = target.port;
    const port: LedgerPort = {
      ...grpcPort,
      settleMaturities: async (items) => {
        if (calls++ === 0) since = process.hrtime.bigint();
        try {
          return await grpcPort.settleMaturities!(items);
        } finally {
          if (--calls === 0) ledgerNs += process.hrtime.bigint() - since;
        }
      },
    };
    const ctx: InvestmentContext = {
      store: investmentStore,
      ledger: port,
      plans: [PLAN],
      clock: () => new Date(),
      newId: randomUUID,
      logger,
      personalData: personalDataOf({}),
    };

    // ---- one at a time (the path before batches): per investment its maturity, ledger calls, record
    const t1 = process.hrtime.bigint();
    const cpu1 = process.cpuUsage();
    const settledOne = (await settleDue({ ...ctx, ledger: { ...port, settleMaturities: undefined } })).length;
    const oneSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
    const oneCpu = cpuSince(cpu1);
    await onLedger((ledger) => verify(ledger, investmentStore, oneSet, settledOne, o.baseline));
    const oneAtATime = run('one at a time (settleDue)', settledOne, oneSeconds, oneCpu);
    o.log(`  one at a time: ${settledOne} in ${round(oneSeconds)} s (${oneAtATime.perSecond}/s)`);

    t0 = Date.now();
    await seedInvestments(investmentStore, batchSet);
    seedSeconds += (Date.now() - t0) / 1000;
    o.log(`  seeded ${o.count} due investments for the batch run`);

    // ---- the batch pass (the scheduler's)
    ledgerNs = 0n;
    const ledgerCpu0 = target.cpuSeconds?.();
    const t3 = process.hrtime.bigint();
    const cpu3 = process.cpuUsage();
    const settledBatch = await profiled(`maturity-batch-${topology}`, () =>
      settleDueInBatches(ctx, { batchSize: o.batchSize }),
    );
    const batchSeconds = Number(process.hrtime.bigint() - t3) / 1e9;
    const ledgerSeconds = Number(ledgerNs) / 1e9;
    const batchCpu = cpuSince(cpu3);
    const ledgerCpu1 = target.cpuSeconds?.();
    const ledgerCpuSeconds =
      ledgerCpu0 !== undefined && ledgerCpu1 !== undefined ? round(ledgerCpu1 - ledgerCpu0) : undefined;
    await onLedger((ledger) => verify(ledger, investmentStore, batchSet, settledBatch, o.baseline + o.count));
    const batch = run(
      `batches of ${o.batchSize ?? 1000} (settleDueInBatches)`,
      settledBatch,
      batchSeconds,
      batchCpu,
    );
    o.log(
      `  batch: ${settledBatch} in ${round(batchSeconds)} s (${batch.perSecond}/s); a SettleMaturities call in flight ${round(ledgerSeconds)} s of it${ledgerCpuSeconds === undefined ? '' : `; the ledger process used ${ledgerCpuSeconds} CPU s`}`,
    );
    return {
      topology,
      batch,
      oneAtATime,
      batchSize: o.batchSize ?? 1000,
      ledgerShare: round(ledgerSeconds / batchSeconds, 2),
      ...(ledgerCpuSeconds === undefined ? {} : { ledgerCpuSeconds }),
      speedup: round(batch.perSecond / oneAtATime.perSecond, 1),
      oneAtATimeProjectedSeconds: round(o.count / oneAtATime.perSecond, 1),
      seedSeconds: round(seedSeconds, 1),
      withinGoal: o.count >= GOAL_COUNT ? batchSeconds <= 20 : GOAL_COUNT / batch.perSecond <= 20,
      seconds100k: round(o.count >= GOAL_COUNT ? batchSeconds : GOAL_COUNT / batch.perSecond, 1),
      oneAtATimeSeconds100k: round(GOAL_COUNT / oneAtATime.perSecond, 1),
    };
  } finally {
    await target?.stop();
    await ledgerStore.close(); // (closing twice is nothing)
    await investmentFile.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `fn` under the V8 CPU profiler when BENCH_CPU_PROF=<dir> is set (the profile of this process, written to
 * <dir>/<name>.cpuprofile); else `fn` alone.
 */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = benchText('BENCH_CPU_PROF');
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: object };
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

const run = (name: string, investments: number, seconds: number, cpuSeconds: number): MaturityRun => ({
  name,
  investments,
  seconds: round(seconds),
  perSecond: Math.round(investments / seconds),
  cpuSeconds: round(cpuSeconds),
});

const cpuSince = (from: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
};

/** Goal 4's count. */
const GOAL_COUNT = 100_000;

type SeededSet = { tag: string; investmentIds: string[]; investors: string[] };

/** `count` investments of PER_INVESTOR investors each, named after `tag`. */
function seededSet(tag: string, count: number): SeededSet {
  return {
    tag,
    investors: Array.from({ length: Math.ceil(count / PER_INVESTOR) }, (_, i) => `bench-${tag}-${i}`),
    investmentIds: Array.from({ length: count }, (_, i) => `inv-${tag}-${i}`),
  };
}
const investorOf = (set: SeededSet, i: number) => set.investors[Math.floor(i / PER_INVESTOR)];

/** On the ledger (its command path): each investor's deposit, every investment's hold placed and captured. */
const seedLedger = (ledger: ServiceStore, set: SeededSet): Promise<void> =>
  seedCapturedHolds(
    ledger,
    set.investmentIds.map((holdId, i) => ({ userId: investorOf(set, i), holdId })),
    PRINCIPAL_CENTS,
    `seed-${set.tag}`,
  );

/**
 * On the investment side: every investment's stream and read model as the service's own commands leave
 * them at approval, approved long enough ago that every end date has passed.
 */
async function seedInvestments(investment: ServiceStore, set: SeededSet): Promise<void> {
  const { investmentIds } = set;
  const count = investmentIds.length;
  const meta = { correlationId: `seed-${set.tag}` };
  const approvedAt = new Date(Date.now() - PLAN.durationMs - 60_000);
  for (let at = 0; at < count; at += SEED_TX)
    await investment.transaction(async (tx) => {
      for (let i = at; i < Math.min(count, at + SEED_TX); i++) {
        const investmentId = investmentIds[i];
        const commands: InvestmentCommand[] = [
          {
            type: 'RequestInvestment',
            investmentId,
            userId: investorOf(set, i),
            isVerified: true,
            planName: PLAN.name,
            plans: [PLAN],
            amountCents: PRINCIPAL_CENTS,
            availableDepositCents: PRINCIPAL_CENTS,
            now: approvedAt,
          },
          { type: 'RecordHoldPlaced', now: approvedAt },
          { type: 'ApproveInvestment', adminId: 'bench-admin', actorRole: 'admin', now: approvedAt },
          { type: 'RecordHoldCaptured', now: approvedAt },
        ];
        let state: InvestmentState = investmentDecider.initialState();
        const events: InvestmentEvent[] = [];
        for (const c of commands) {
          for (const e of investmentDecider.decide(c, state)) {
            state = investmentDecider.evolve(state, e);
            events.push(e);
          }
        }
        const { events: stored } = await tx.appendToStream(
          investmentView.streamIdOf(investmentId),
          0,
          events,
          meta,
        );
        let doc: InvestmentDoc | null = null;
        for (const e of stored) doc = investmentView.project(doc, e);
        if (doc) await tx.put(COLLECTIONS.investments, investmentId, doc);
      }
    });
}

/** Every investment Ended and settled, one maturity posting each, every investor's balances exact. */
async function verify(
  ledger: ServiceStore,
  investment: ServiceStore,
  set: SeededSet,
  settled: number,
  postingsSoFar: number,
): Promise<void> {
  if (settled !== set.investmentIds.length)
    throw new Error(`settled ${settled} of ${set.investmentIds.length} investments`);
  const notDone = (
    await investment.find<InvestmentDoc>(COLLECTIONS.investments, { where: { sync: 'settle' } })
  ).length;
  if (notDone) throw new Error(`${notDone} investments still owe their settlement`);
  const postings = await ledger.count(LEDGER_COLLECTIONS.transactions, { reason: 'investment_matured' });
  if (postings !== postingsSoFar)
    throw new Error(`${postings} maturity postings on the ledger, ${postingsSoFar} investments settled`);
  const balances = await Promise.all(
    set.investors.map((u) => ledger.get<BalancesDoc>(LEDGER_COLLECTIONS.balances, u)),
  );
  const profit = balances.reduce((sum, b) => sum + (b?.profitCents ?? 0), 0);
  const invested = balances.reduce((sum, b) => sum + (b?.investedCents ?? 0), 0);
  if (profit !== set.investmentIds.length * MATURITY_CENTS || invested !== 0)
    throw new Error(`balances: Total Profit ${profit}, Total Investment ${invested}`);
}

const TOPOLOGY_NAMES: Record<MaturityTopology, string> = {
  services: 'services (the ledger its own process)',
  standalone: 'standalone (one process)',
};

export function printMaturity(r: MaturityBenchResult): void {
  if ('skipped' in r) {
    console.log(`\nmaturity at volume: skipped: ${r.skipped}`);
    return;
  }
  const measured = r.batch.investments >= GOAL_COUNT;
  console.log(
    `\nmaturity at volume: due investments settled exactly once (100,000 in ≤ 20 s, services topology: ${r.withinGoal ? 'met' : 'missed'}, ${measured ? 'measured' : `projected from ${r.batch.investments} (BENCH_MATURITIES=100000 measures it)`})`,
  );
  const runs = [r, ...(r.standalone && !('skipped' in r.standalone) ? [r.standalone] : [])];
  table(
    [
      'topology',
      'run',
      'investments',
      'seconds',
      'per s',
      'CPU s here',
      'ledger call in flight',
      '÷ one at a time',
    ],
    runs.flatMap((m) =>
      [m.oneAtATime, m.batch].map((x) => [
        TOPOLOGY_NAMES[m.topology ?? 'standalone'],
        x.name,
        x.investments,
        x.seconds,
        x.perSecond,
        x.cpuSeconds,
        x === m.batch ? `${Math.round(100 * m.ledgerShare)} %` : '',
        round(x.perSecond / m.oneAtATime.perSecond, 1),
      ]),
    ),
  );
  for (const m of runs)
    console.log(
      `  ${TOPOLOGY_NAMES[m.topology ?? 'standalone']}: 100,000 in ${m.seconds100k} s in batches${measured ? '' : ' (projected)'}, ${m.oneAtATimeSeconds100k} s one at a time (projected); seeding took ${m.seedSeconds} s (not timed)`,
    );
  if (r.standalone && 'skipped' in r.standalone)
    console.log(`  standalone: skipped: ${r.standalone.skipped}`);
}

export function maturityHeadline(r: MaturityBenchResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  const standalone = r.standalone && !('skipped' in r.standalone) ? r.standalone : undefined;
  return {
    'maturity batch settlements/s': r.batch.perSecond,
    'maturity batch seconds': r.batch.seconds,
    'maturity 100k seconds (batches)': r.seconds100k,
    'maturity batch ÷ one at a time (per s)': r.speedup,
    ...(standalone ? { 'maturity 100k seconds (standalone)': standalone.seconds100k } : {}),
  };
}
