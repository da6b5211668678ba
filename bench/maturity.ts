/**
 * Maturity at volume (issue 10 goal 4): BENCH_MATURITIES (default 20,000, for a quick `make bench`; the
 * goal's figure is BENCH_MATURITIES=100000, whose seeding alone takes minutes) due investments settled by the
 * investment service's batch pass (settleDueInBatches: one ledger SettleMaturities call per batch, then the
 * batch recorded in one store transaction, one append per investment read from its document), against the
 * one-at-a-time settlement (settleDue: per investment its maturity, its ledger calls and its record) of
 * BENCH_MATURITY_BASELINE (default 1,000) investments in the same run. The anchor is Fineract's
 * close-of-business batch.
 *
 * Both run in this process the way the standalone target runs them: the real ledger service (start(): its
 * gRPC server, outbox relay and SQLite file store, in-process bus) reached by the investment side over
 * gRPC through its LedgerPort, the investment side on its own SQLite file store, recording its integration
 * events at append as the service's store does (withIntegrationEvents). The investments are seeded
 * beforehand (not timed): each investor funded by a deposit, each investment's hold placed and
 * captured on the ledger (its command path, a thousand to a transaction), each investment's events
 * (requested, hold placed, approved, hold captured; end date in the past) appended to its stream with
 * its read model. After each run: every investment Ended and settled, exactly one maturity posting per
 * investment on the ledger, every investor's Total Profit and Total Investment exact.
 */
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
import { createGrpcLedger } from '../services/ledger/src/client/ledgerPort.grpc.js';
import { parseLedgerConfig } from '../services/ledger/src/config.js';
import { start as startLedger } from '../services/ledger/src/main.js';
import { executeLedger } from '../services/ledger/src/app/streams.js';
import {
  type BalancesDoc,
  COLLECTIONS as LEDGER_COLLECTIONS,
} from '../services/ledger/src/projections/views.js';
import { personalDataOf } from '@meridian/platform/personalData';
import type { InvestmentContext } from '../services/investment/src/app/context.js';
import { toIntegrationEvent } from '../services/investment/src/app/integrationEvents.js';
import { settleDue, settleDueInBatches } from '../services/investment/src/app/investments.js';
import {
  type InvestmentCommand,
  type InvestmentEvent,
  type InvestmentState,
  investmentDecider,
} from '../services/investment/src/domain/investment.js';
import type { Plan } from '../services/investment/src/domain/plan.js';
import {
  COLLECTIONS,
  type InvestmentDoc,
  investmentView,
} from '../services/investment/src/projections/investmentView.js';
import { round } from './load.js';
import { table } from './results.js';

export interface MaturityRun {
  name: string;
  investments: number;
  seconds: number;
  perSecond: number;
  /** CPU seconds of this process (user + system) during the run: the figure a loaded machine moves least */
  cpuSeconds: number;
}
export type MaturityBenchResult =
  | { skipped: string }
  | {
      batch: MaturityRun;
      oneAtATime: MaturityRun;
      batchSize: number;
      /** the share of the batch pass's wall time spent in the ledger's SettleMaturities calls */
      ledgerShare: number;
      /** batch settlements/s ÷ one-at-a-time settlements/s */
      speedup: number;
      /** the one-at-a-time rate's time for the batch's count, seconds */
      oneAtATimeProjectedSeconds: number;
      seedSeconds: number;
      /** goal 4: the batch within 20 s */
      withinGoal: boolean;
      /** 100,000 at the batch's rate (measured when the run was 100,000; a projection otherwise, which
       *  flatters: the rate falls as the stores grow) */
      seconds100k: number;
      /** the one-at-a-time rate's time for 100,000, seconds */
      oneAtATimeSeconds100k: number;
    };

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

export async function benchMaturity(o: {
  count: number;
  baseline: number;
  batchSize?: number;
  log(line: string): void;
}): Promise<MaturityBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-bench-maturity-'));
  const logger = createLogger('bench', { level: 'warn' });
  const bus = createInProcEventBus({ path: join(dir, 'bus.db') });
  const ledgerStore = createSqliteServiceStore(join(dir, 'ledger.db'));
  const investmentFile = createSqliteServiceStore(join(dir, 'investment.db'));
  // as the service's store: every append records its integration events (InvestmentMatured goes out)
  const investmentStore = withIntegrationEvents(investmentFile, toIntegrationEvent);
  const ledgerService = await startLedger({
    config: parseLedgerConfig({ NODE_ENV: 'production', LEDGER_GRPC_ADDR: '127.0.0.1:0' }),
    store: ledgerStore,
    bus,
    logger,
  });
  const grpcPort = createGrpcLedger(ledgerService.grpcAddress, { deadlineMs: 60_000 });
  // the wall time spent waiting on the ledger's SettleMaturities calls (the rest of a batch pass is the
  // investment side's scan and record)
  let ledgerNs = 0n;
  const port: typeof grpcPort = {
    ...grpcPort,
    settleMaturities: async (items) => {
      const t = process.hrtime.bigint();
      try {
        return await grpcPort.settleMaturities!(items);
      } finally {
        ledgerNs += process.hrtime.bigint() - t;
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
  try {
    let t0 = Date.now();
    const tag = randomUUID().slice(0, 8);
    const oneSet = await seed(ledgerStore, investmentStore, `${tag}-one`, o.baseline);
    let seedSeconds = (Date.now() - t0) / 1000;
    o.log(`  seeded ${o.baseline} due investments for the one-at-a-time run`);

    // ---- one at a time (the path before batches): per investment its maturity, ledger calls, record
    const t1 = process.hrtime.bigint();
    const cpu1 = process.cpuUsage();
    const settledOne = (await settleDue({ ...ctx, ledger: { ...port, settleMaturities: undefined } })).length;
    const oneSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
    const oneCpu = cpuSince(cpu1);
    await verify(ledgerStore, investmentStore, oneSet, settledOne, o.baseline);
    const oneAtATime = run('one at a time (settleDue)', settledOne, oneSeconds, oneCpu);
    o.log(`  one at a time: ${settledOne} in ${round(oneSeconds)} s (${oneAtATime.perSecond}/s)`);

    t0 = Date.now();
    const batchSet = await seed(ledgerStore, investmentStore, `${tag}-batch`, o.count);
    seedSeconds += (Date.now() - t0) / 1000;
    o.log(`  seeded ${o.count} due investments for the batch run`);

    // ---- the batch pass (the scheduler's)
    const t3 = process.hrtime.bigint();
    const cpu3 = process.cpuUsage();
    const settledBatch = await profiled('maturity-batch', () =>
      settleDueInBatches(ctx, { batchSize: o.batchSize }),
    );
    const batchSeconds = Number(process.hrtime.bigint() - t3) / 1e9;
    const ledgerSeconds = Number(ledgerNs) / 1e9;
    const batchCpu = cpuSince(cpu3);
    await verify(ledgerStore, investmentStore, batchSet, settledBatch, o.baseline + o.count);
    const batch = run(
      `batches of ${o.batchSize ?? 1000} (settleDueInBatches)`,
      settledBatch,
      batchSeconds,
      batchCpu,
    );
    o.log(
      `  batch: ${settledBatch} in ${round(batchSeconds)} s (${batch.perSecond}/s); the ledger's SettleMaturities calls ${round(ledgerSeconds)} s of it`,
    );
    return {
      batch,
      oneAtATime,
      batchSize: o.batchSize ?? 1000,
      ledgerShare: round(ledgerSeconds / batchSeconds, 2),
      speedup: round(batch.perSecond / oneAtATime.perSecond, 1),
      oneAtATimeProjectedSeconds: round(o.count / oneAtATime.perSecond, 1),
      seedSeconds: round(seedSeconds, 1),
      withinGoal: o.count >= GOAL_COUNT ? batchSeconds <= 20 : GOAL_COUNT / batch.perSecond <= 20,
      seconds100k: round(o.count >= GOAL_COUNT ? batchSeconds : GOAL_COUNT / batch.perSecond, 1),
      oneAtATimeSeconds100k: round(GOAL_COUNT / oneAtATime.perSecond, 1),
    };
  } finally {
    grpcPort.close();
    await ledgerService.stop();
    await bus.close();
    await ledgerStore.close();
    await investmentFile.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `fn` under the V8 CPU profiler when BENCH_CPU_PROF=<dir> is set (the profile of this process, written to
 * <dir>/<name>.cpuprofile); else `fn` alone.
 */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF;
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

type SeededSet = { investmentIds: string[]; investors: string[] };

/**
 * `count` due investments of PER_INVESTOR investors: on the ledger each investor's deposit and every
 * investment's hold placed and captured (through its command path), on the investment side every
 * investment's stream and read model as the service's own commands leave them at approval.
 */
async function seed(
  ledger: ServiceStore,
  investment: ServiceStore,
  tag: string,
  count: number,
): Promise<SeededSet> {
  const investors = Array.from({ length: Math.ceil(count / PER_INVESTOR) }, (_, i) => `bench-${tag}-${i}`);
  const investmentIds = Array.from({ length: count }, (_, i) => `inv-${tag}-${i}`);
  const investorOf = (i: number) => investors[Math.floor(i / PER_INVESTOR)];
  const meta = { correlationId: `seed-${tag}` };
  const now = new Date();
  // approved long enough ago that every end date has passed
  const approvedAt = new Date(now.getTime() - PLAN.durationMs - 60_000);
  const command = { transactionId: '', now };
  for (let at = 0; at < investors.length; at += SEED_TX)
    await ledger.transaction(async (tx) => {
      for (const userId of investors.slice(at, at + SEED_TX)) {
        const n = investmentIds.filter((_, i) => investorOf(i) === userId).length;
        await executeLedger(
          tx,
          {
            type: 'CreditDeposit',
            userId,
            depositId: `dep-${userId}`,
            amountCents: n * PRINCIPAL_CENTS,
            idempotencyKey: `deposit:dep-${userId}`,
            ...command,
            transactionId: randomUUID(),
          },
          meta,
        );
      }
    });
  for (let at = 0; at < count; at += SEED_TX)
    await ledger.transaction(async (tx) => {
      for (let i = at; i < Math.min(count, at + SEED_TX); i++) {
        const userId = investorOf(i);
        const holdId = investmentIds[i];
        await executeLedger(
          tx,
          {
            type: 'PlaceHold',
            userId,
            holdId,
            purpose: 'investment',
            amountCents: PRINCIPAL_CENTS,
            idempotencyKey: holdId,
            ...command,
            transactionId: randomUUID(),
          },
          meta,
        );
        await executeLedger(
          tx,
          {
            type: 'CaptureHold',
            userId,
            holdId,
            idempotencyKey: `capture:${holdId}`,
            ...command,
            transactionId: randomUUID(),
          },
          meta,
        );
      }
    });
  for (let at = 0; at < count; at += SEED_TX)
    await investment.transaction(async (tx) => {
      for (let i = at; i < Math.min(count, at + SEED_TX); i++) {
        const investmentId = investmentIds[i];
        const commands: InvestmentCommand[] = [
          {
            type: 'RequestInvestment',
            investmentId,
            userId: investorOf(i),
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
  return { investmentIds, investors };
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

export function printMaturity(r: MaturityBenchResult): void {
  if ('skipped' in r) {
    console.log(`\nmaturity at volume: skipped: ${r.skipped}`);
    return;
  }
  const measured = r.batch.investments >= GOAL_COUNT;
  console.log(
    `\nmaturity at volume: due investments settled exactly once (goal 4: 100,000 in ≤ 20 s: ${r.withinGoal ? 'met' : 'missed'}, ${measured ? 'measured' : `projected from ${r.batch.investments} (BENCH_MATURITIES=100000 measures it)`})`,
  );
  table(
    ['run', 'investments', 'seconds', 'per s', 'CPU s', 'CPU ms per 1000', '÷ one at a time'],
    [r.oneAtATime, r.batch].map((x) => [
      x.name,
      x.investments,
      x.seconds,
      x.perSecond,
      x.cpuSeconds,
      round((1000 * x.cpuSeconds * 1000) / x.investments, 1),
      round(x.perSecond / r.oneAtATime.perSecond, 1),
    ]),
  );
  console.log(
    `  100,000: ${r.seconds100k} s in batches${measured ? '' : ' (projected)'}, ${r.oneAtATimeSeconds100k} s one at a time (projected); one at a time would take ${r.oneAtATimeProjectedSeconds} s for ${r.batch.investments}; seeding took ${r.seedSeconds} s (not timed)`,
  );
}

export function maturityHeadline(r: MaturityBenchResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  return {
    'maturity batch settlements/s': r.batch.perSecond,
    'maturity batch seconds': r.batch.seconds,
    'maturity 100k seconds (batches)': r.seconds100k,
    'maturity batch ÷ one at a time (per s)': r.speedup,
  };
}
