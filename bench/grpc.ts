/**
 * Ledger postings per second through gRPC, against a raw grpc-js unary echo measured the same way in the
 * same run (bench/echoService.ts, served by bench/baselineServer.ts) twice: over a plaintext channel, the
 * goal's baseline ("÷ echo"), and over mutual TLS as the ledger's calls are ("÷ TLS echo": what the
 * ledger costs beyond the transport). The goal's figures are on the ledger as deployed: its program as its
 * own process (ledgerProcess.ts; docker-compose, Kubernetes and `make cluster` run it so), where its
 * outbox relay has a thread of its own and the services that consume its events run elsewhere. The
 * standalone target's ledger (one process for the whole product: every consumer of the postings' events
 * shares its event loop) is measured on the spread run too, beside it, for comparison.
 *
 * Every call is one posting: the investment service's SettleMaturity of a fresh investment id (principal
 * 1 cent, maturity 2 cents: a three-entry LedgerTransaction, Total Investment and platform:yield to Total
 * Profit, with its own idempotency key), so the runs differ only in where the postings land:
 *   - spread:   round-robin over BENCH_SPREAD_USERS users' ledger streams (default 1000);
 *   - hot 100:  every posting on ONE user's ledger stream, which holds ~100 events when the run starts;
 *   - hot 100k: every posting on ONE user's ledger stream, which holds BENCH_HOT_EVENTS (100,000) events
 *               when the run starts (written beforehand by SettleMaturities batches): a command that folded
 *               its stream would be O(n) here; the ledger's state row makes it O(1) (architecture.md §9).
 * (The posting is SettleMaturity, an internal call funded per user through a confirmed deposit, a hold and
 * its capture, all through gRPC: the admin AdjustBalance needs a user identity has registered, which the
 * bench cannot create in bulk.)
 * Every call goes as production makes it (mutual TLS, platform grpc/mesh.ts and callers.ts): the methods
 * the investment service calls (PlaceHold, CaptureHold, SettleMaturity, SettleMaturities) with the
 * investment service's certificate, the ones the gateway calls for a person (CreateDeposit, ConfirmDeposit,
 * GetBalances) with the gateway's and a user assertion signed with its key (userAssertion.ts), each from
 * the certificates of the ledger's own CA (LedgerUnderTest.meshDir).
 * Two more runs split a posting's cost (BREAKDOWN below): a GetBalances call of the same ledger (the call
 * layer), and the command path alone in this process (ledgerCommandPath.ts). A last one runs that command
 * path on a store with synchronous NORMAL instead of the ledger's FULL (sqliteFile.ts): what syncing the
 * WAL at every COMMIT costs a posting.
 * The runs (echo, TLS echo, spread, hot 100, hot 100k, the other ledgers' spread, the breakdown's) are
 * interleaved in BENCH_ROUNDS slices (A B C D, D C B A, …)
 * so a machine whose load drifts during the run, and the target's event backlog after a run, weigh on all
 * of them alike; each figure is its slices' calls over their summed wall time.
 */
import { randomUUID } from 'node:crypto';
import {
  type RequestOf,
  type UnaryMethod,
  callUnary,
  createGrpcClient,
  waitForClientReady,
} from '@meridian/platform/grpc/index';
import type { MeshIdentity } from '@meridian/platform/grpc/mesh';
import {
  CreateDepositRequest,
  DecideDepositRequest,
  GetBalancesRequest,
  HoldPurpose,
  LedgerServiceClient,
  PlaceHoldRequest,
  SettleHoldRequest,
  SettleMaturitiesRequest,
  SettleMaturityRequest,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { withMeshIdentities } from './children.js';
import { echo, echoClient, echoTlsClient } from './echoService.js';
import { openLedgerCommandPath } from './ledgerCommandPath.js';
import { threadCpuMs } from './logins.js';
import { figure, runSlice, type LoadFigure, type LoadSlice } from './load.js';

export interface GrpcBenchOptions {
  seconds: number;
  maxCount: number;
  concurrency: number;
  spreadUsers: number;
  /** Events on the long hot stream before its runs (BENCH_HOT_EVENTS, default 100,000). */
  hotEvents?: number;
  /** The time and count of each run are split into this many slices, run interleaved (A B C, C B A, …). */
  rounds: number;
  /** The plaintext echo's address. */
  echoAddress: string;
  /** The mutual-TLS echo's address, and the certificate of its CA the bench presents to it. */
  echoTls: { address: string; caller: MeshIdentity };
  /** The ledgers measured: the first on every run (the goal's figures), the others on the spread run only. */
  ledgers: LedgerUnderTest[];
  log(figure: LoadFigure, unit: string): void;
}

export interface LedgerUnderTest {
  /** e.g. "own process", "standalone target" */
  name: string;
  address: string;
  /** Its process: its CPU per posting is measured from /proc (all threads). */
  pid?: number;
  /**
   * The platform CA its server trusts and the certificates of its callers (keptMeshCertificates' layout,
   * <meshDir>/<service>): the bench calls it as the gateway and as the investment service.
   */
  meshDir: string;
}

/** A ledger's clients: as the gateway (for a person, with a signed user assertion) and as the investment service. */
interface LedgerClients {
  user: LedgerServiceClient;
  service: LedgerServiceClient;
}

function ledgerClients(l: LedgerUnderTest): LedgerClients {
  return withMeshIdentities(l.meshDir, ['gateway', 'investment'], () => ({
    user: createGrpcClient(LedgerServiceClient, l.address, { caller: 'gateway' }),
    service: createGrpcClient(LedgerServiceClient, l.address, { caller: 'investment' }),
  }));
}

/** One `T` per run, by what the run measures (grpcFigureRows lists them in the runs' and tables' order). */
export interface ByRun<T> {
  /** baseline: grpc-js unary echo over a plaintext channel (the goal's baseline) */
  echo: T;
  /** baseline: the same echo over mutual TLS (the ledger's calls' transport) */
  echoTls: T;
  /** the goal's ledger: postings round-robin over the spread users */
  spread: T;
  /** the goal's ledger: postings on one user's short stream */
  hot: T;
  /** the goal's ledger: postings on one user's long stream */
  hotLong: T;
  /** the other ledgers' spread runs, in the order of `ledgers` after the first */
  otherSpreads: T[];
  /** the breakdown (BREAKDOWN): GetBalances calls, the command path, the command path with NORMAL */
  read: T;
  path: T;
  pathNormal: T;
}

/** The runs' figures by what each measures. */
export type GrpcFigures = ByRun<LoadFigure>;

/** The runs (or their figures) in the order they run and the tables list them. */
export const grpcFigureRows = <T>(f: ByRun<T>): T[] => [
  f.echo,
  f.echoTls,
  f.spread,
  f.hot,
  f.hotLong,
  ...f.otherSpreads,
  f.read,
  f.path,
  f.pathNormal,
];

export interface GrpcBenchResult {
  figures: GrpcFigures;
  ratios: {
    /** ledger postings/s (spread) ÷ bare gRPC echo calls/s (plaintext) */
    spreadVsEcho: number;
    /** ledger postings/s (spread) ÷ gRPC echo calls/s over mutual TLS */
    spreadVsEchoTls: number;
    /** ledger postings/s (hot account, short stream) ÷ bare gRPC echo calls/s */
    hotVsEcho: number;
    /** hot (short stream) ÷ spread */
    hotVsSpread: number;
    /** hot (long stream) ÷ spread */
    hotLongVsSpread?: number;
    /** hot (long stream) ÷ hot (short stream): 1 when a command's cost does not grow with its stream */
    hotLongVsHotShort?: number;
    /** The other ledgers' spread postings/s ÷ (plaintext) echo calls/s, by their name */
    others?: Record<string, number>;
  };
  /** The ledgers measured, the goal's first */
  ledgers?: string[];
  /** Postings on the short hot stream at the end. */
  hotPostings: number;
  /** Events on the two hot streams when their runs started. */
  hotStreamEvents?: { short: number; long: number };
  /** Each ledger process's CPU per posting (event loop, other threads), whatever runs in it included. */
  cpu?: Array<{ ledger: string; postings: number; mainMsPerPosting: number; threadsMsPerPosting: number }>;
  /**
   * Where a posting's time goes on the goal's ledger (see BREAKDOWN): its calls that read one document
   * (the call layer) and its command path alone in the bench's process, each with its CPU.
   */
  breakdown?: {
    /** GetBalances calls/s ÷ (plaintext) echo calls/s, and the ledger event loop's CPU per such call (ms) */
    readVsEcho: number;
    readMainMsPerCall: number;
    /** the command path's postings/s ÷ (plaintext) echo calls/s, and this process's CPU per posting on it (ms) */
    pathVsEcho: number;
    pathCpuMsPerPosting: number;
    /** the command path's postings/s with the ledger's synchronous FULL ÷ with NORMAL (the cost of durability) */
    pathFullVsNormal: number;
  };
}

/**
 * The breakdown of the goal's figure, two runs interleaved with the others:
 *   - "GetBalances": a call of the same ledger that reads one document (the balances a posting answers)
 *     and writes nothing: the call layer (HTTP/2 over TLS, grpc-js, the interceptors with the caller and
 *     user-assertion checks, protobuf, the power check)
 *     with the least of the store behind it;
 *   - "command path": the SettleMaturity use case called in this process (ledgerCommandPath.ts: the same
 *     store settings and integration mapping, no gRPC, no relay, no consumers), as many in flight.
 * A posting through gRPC pays both on one event loop, plus the wake of its relay.
 */
const BREAKDOWN_READ = 'GetBalances (one document read, no write)';
const BREAKDOWN_PATH = 'command path in the bench process (no gRPC, no relay)';
const BREAKDOWN_PATH_NORMAL = `${BREAKDOWN_PATH}, synchronous NORMAL`;

/** One of the interleaved runs: its slices, and the ledger whose postings it makes (index in `ledgers`; -1: none). */
interface GrpcRun {
  name: string;
  unit: string;
  call: (i: number) => Promise<unknown>;
  slices: LoadSlice[];
  on: number;
}

const WARMUP_CALLS = 200;
/** Each SettleMaturity posting appends two events (TransactionPosted, BalancesChanged). */
const EVENTS_PER_POSTING = 2;
const SEED_BATCH = 1000;
/** Seeding calls wait longer than the load's calls (a busy machine; not timed). */
const SEED_DEADLINE = { deadlineMs: 60_000 };

export async function benchGrpc(o: GrpcBenchOptions): Promise<GrpcBenchResult> {
  const rounds = Math.max(1, Math.floor(o.rounds));
  const slice = (
    call: (i: number) => Promise<unknown>,
    maxCount = Math.ceil(o.maxCount / rounds),
    seconds = o.seconds / rounds,
  ) => runSlice({ seconds, maxCount, concurrency: o.concurrency, call });

  if (o.ledgers.length === 0) throw new Error('benchGrpc: no ledger to measure');
  const ec = echoClient(o.echoAddress);
  const tlsEc = echoTlsClient(o.echoTls.address, o.echoTls.caller);
  const clients = o.ledgers.map(ledgerClients);
  const [ledger] = clients as [LedgerClients, ...LedgerClients[]];
  let closePath = async () => {};
  try {
    await waitForClientReady(ec, 5_000);
    await waitForClientReady(tlsEc, 5_000);
    for (const c of clients)
      for (const client of [c.user, c.service]) await waitForClientReady(client, 10_000);

    // the baselines: raw grpc-js unary echo of a 64-byte payload (about the size of a small request),
    // over plaintext and over mutual TLS
    const payload = Buffer.alloc(64, 1);
    const callEcho = () => echo(ec, payload);
    const callEchoTls = () => echo(tlsEc, payload);

    const tag = randomUUID().slice(0, 8);
    const admin = { userId: `bench-admin-${tag}`, sessionId: 'bench', impersonatorId: '', correlationId: '' };
    /** A user with `dollars` in Total Investment on `client`'s ledger: a confirmed deposit, a hold, its capture. */
    const fund = async (userId: string, dollars: number, client = ledger) => {
      const seedCall = <M extends UnaryMethod<LedgerServiceClient>>(
        as: keyof LedgerClients,
        method: M,
        request: RequestOf<LedgerServiceClient, M>,
      ) => callUnary(client[as], method, request, SEED_DEADLINE);
      const deposit = await seedCall(
        'user',
        'createDeposit',
        CreateDepositRequest.fromPartial({
          caller: { userId, sessionId: 'bench' },
          callerRole: 'subscriber',
          amount: String(dollars),
          emailVerified: true,
        }),
      );
      await seedCall(
        'user',
        'confirmDeposit',
        DecideDepositRequest.fromPartial({
          caller: admin,
          callerRole: 'admin',
          depositId: deposit.depositId,
        }),
      );
      const holdId = `seed-${userId}`;
      await seedCall(
        'service',
        'placeHold',
        PlaceHoldRequest.fromPartial({
          userId,
          holdId,
          purpose: HoldPurpose.HOLD_PURPOSE_INVESTMENT,
          amountCents: dollars * 100,
        }),
      );
      await seedCall('service', 'captureHold', SettleHoldRequest.fromPartial({ userId, holdId }));
    };
    // one posting: a maturity of a fresh investment (1 cent of principal, 1 cent of profit from platform:yield)
    const post = (userId: string, client = ledger) =>
      callUnary(
        client.service,
        'settleMaturity',
        SettleMaturityRequest.fromPartial({
          userId,
          investmentId: randomUUID(),
          principalCents: 1,
          maturityAmountCents: 2,
        }),
      );

    const spreadUser = (i: number) => `bench-${tag}-spread-${i}`;
    const hotUser = `bench-${tag}-hot`;
    const longUser = `bench-${tag}-hot-long`;
    const longPostings = Math.ceil((o.hotEvents ?? 100_000) / EVENTS_PER_POSTING);
    const started = Date.now();
    for (const client of clients)
      for (let i = 0; i < o.spreadUsers; i += o.concurrency)
        await Promise.all(
          Array.from({ length: Math.min(o.concurrency, o.spreadUsers - i) }, (_, k) =>
            fund(spreadUser(i + k), 1_000, client),
          ),
        );
    await fund(hotUser, 10_000);
    await fund(longUser, 10_000);
    // the short hot stream: ~100 events
    const shortPostings = Math.ceil((100 - 10) / EVENTS_PER_POSTING);
    for (let i = 0; i < shortPostings; i++) await post(hotUser);
    // the long hot stream: written in SettleMaturities batches
    for (let done = 0; done < longPostings; done += SEED_BATCH) {
      const n = Math.min(SEED_BATCH, longPostings - done);
      const { results } = await callUnary(
        ledger.service,
        'settleMaturities',
        SettleMaturitiesRequest.fromPartial({
          items: Array.from({ length: n }, () => ({
            userId: longUser,
            investmentId: randomUUID(),
            principalCents: 1,
            maturityAmountCents: 2,
          })),
        }),
        { deadlineMs: 120_000 },
      );
      const refused = results.find((r) => !r.settled);
      if (refused) throw new Error(`seeding the long hot stream: ${refused.errorMessage}`);
    }
    console.log(
      `  seeded ${o.spreadUsers} funded users on each ledger and two hot streams (${10 + shortPostings * EVENTS_PER_POSTING} and ` +
        `${10 + longPostings * EVENTS_PER_POSTING} events) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    // the breakdown's command path, its users funded as the ledgers' are (not timed)
    const path = openLedgerCommandPath();
    const pathNormal = openLedgerCommandPath('NORMAL');
    closePath = async () => {
      await path.close();
      await pathNormal.close();
    };
    for (const p of [path, pathNormal])
      for (let i = 0; i < o.spreadUsers; i += o.concurrency)
        await Promise.all(
          Array.from({ length: Math.min(o.concurrency, o.spreadUsers - i) }, (_, k) =>
            p.fund(spreadUser(i + k), 1_000),
          ),
        );
    let pathNext = 0;
    const callPath = () => path.post(spreadUser(pathNext++ % o.spreadUsers), randomUUID());
    let pathNormalNext = 0;
    const callPathNormal = () => pathNormal.post(spreadUser(pathNormalNext++ % o.spreadUsers), randomUUID());
    const readRequest = GetBalancesRequest.fromPartial({
      caller: admin,
      callerRole: 'admin',
      userId: spreadUser(0),
    });
    const callRead = () => callUnary(ledger.user, 'getBalances', readRequest);

    const spreadNext = clients.map(() => 0);
    const callSpread = (n: number) => () => post(spreadUser(spreadNext[n]!++ % o.spreadUsers), clients[n]);
    const callHot = () => post(hotUser);
    const callLong = () => post(longUser);

    await slice(callEcho, WARMUP_CALLS);
    await slice(callEchoTls, WARMUP_CALLS);
    await slice(callRead, WARMUP_CALLS);
    await slice(callPath, WARMUP_CALLS);
    await slice(callPathNormal, WARMUP_CALLS);
    for (const client of clients) await slice((i) => post(spreadUser(i % 20), client), WARMUP_CALLS);
    const hotStreamEvents = {
      short: 10 + shortPostings * EVENTS_PER_POSTING,
      long: 10 + longPostings * EVENTS_PER_POSTING,
    };
    let hotPostings = shortPostings;

    const [goal, ...others] = o.ledgers;
    const named = (l: LedgerUnderTest, what: string) => `ledger (${l.name}): ${what}`;
    const run = (name: string, unit: string, call: GrpcRun['call'], on = -1): GrpcRun => ({
      name,
      unit,
      call,
      slices: [],
      on,
    });
    const byRun: ByRun<GrpcRun> = {
      echo: run('baseline: grpc-js unary echo', 'calls/s', callEcho),
      echoTls: run('baseline: grpc-js unary echo, mutual TLS', 'calls/s', callEchoTls),
      spread: run(named(goal!, `postings, ${o.spreadUsers} users`), 'postings/s', callSpread(0), 0),
      hot: run(named(goal!, `hot account, ${hotStreamEvents.short} events`), 'postings/s', callHot, 0),
      hotLong: run(named(goal!, `hot account, ${hotStreamEvents.long} events`), 'postings/s', callLong, 0),
      otherSpreads: others.map((l, i) =>
        run(named(l, `postings, ${o.spreadUsers} users`), 'postings/s', callSpread(i + 1), i + 1),
      ),
      // the breakdown (BREAKDOWN): not postings of a ledger process (`on` -1)
      read: run(named(goal!, BREAKDOWN_READ), 'calls/s', callRead),
      path: run(`ledger ${BREAKDOWN_PATH}: postings, ${o.spreadUsers} users`, 'postings/s', callPath),
      pathNormal: run(
        `ledger ${BREAKDOWN_PATH_NORMAL}: postings, ${o.spreadUsers} users`,
        'postings/s',
        callPathNormal,
      ),
    };
    const runs = grpcFigureRows(byRun);
    // the CPU of the breakdown's runs, slice by slice: the goal ledger's event loop on the reads (taken
    // out of its postings' CPU below), this process's on the command path
    const readCpu = { main: 0, threads: 0 };
    let pathCpuMs = 0;
    const cpu0 = o.ledgers.map((l) => (l.pid ? threadCpuMs(l.pid) : undefined));
    for (let r = 0; r < rounds; r++) {
      for (const run of r % 2 === 0 ? runs : [...runs].reverse()) {
        const goalPid = run.call === callRead ? o.ledgers[0]!.pid : undefined;
        const before = goalPid ? threadCpuMs(goalPid) : undefined;
        const own = run.call === callPath ? process.cpuUsage() : undefined;
        const s = await slice(run.call);
        if (goalPid && before) {
          const after = threadCpuMs(goalPid);
          readCpu.main += after.main - before.main;
          readCpu.threads += after.threads - before.threads;
        }
        if (own) {
          const used = process.cpuUsage(own);
          pathCpuMs += (used.user + used.system) / 1000;
        }
        run.slices.push(s);
        if (run.call === callHot) hotPostings += s.latencies.length;
      }
    }
    // each ledger process's CPU over its runs and until whatever consumes its events there caught up
    const cpu: NonNullable<GrpcBenchResult['cpu']> = [];
    for (const [n, l] of o.ledgers.entries()) {
      const before = cpu0[n];
      if (!l.pid || !before) continue;
      const settled = await settledCpu(l.pid);
      // the goal ledger's reads are not its postings' work
      const after =
        n === 0 ? { main: settled.main - readCpu.main, threads: settled.threads - readCpu.threads } : settled;
      const postings = runs
        .filter((r) => r.on === n)
        .reduce((sum, r) => sum + r.slices.reduce((m, s) => m + s.latencies.length, 0), 0);
      const per = (ms: number) => (postings > 0 ? +(ms / postings).toFixed(3) : NaN);
      const c = {
        ledger: l.name,
        postings,
        mainMsPerPosting: per(after.main - before.main),
        threadsMsPerPosting: per(after.threads - before.threads),
      };
      cpu.push(c);
      console.log(
        `  ledger (${l.name}) CPU per posting (until its process went quiet): event loop ${c.mainMsPerPosting} ms, other threads ${c.threadsMsPerPosting} ms (${postings} postings)`,
      );
    }
    const fig = (r: GrpcRun): LoadFigure => figure(r.name, r.slices);
    const figures: GrpcFigures = {
      echo: fig(byRun.echo),
      echoTls: fig(byRun.echoTls),
      spread: fig(byRun.spread),
      hot: fig(byRun.hot),
      hotLong: fig(byRun.hotLong),
      otherSpreads: byRun.otherSpreads.map(fig),
      read: fig(byRun.read),
      path: fig(byRun.path),
      pathNormal: fig(byRun.pathNormal),
    };
    // grpcFigureRows orders the runs and their figures alike
    grpcFigureRows(figures).forEach((f, i) => o.log(f, runs[i].unit));
    const { echo: echoFig, echoTls: echoTlsFig, spread, hot, hotLong: long, read, path: pathFig } = figures;
    const readCalls = read.count;
    const pathPostings = pathFig.count;
    console.log(
      `  where a posting's time goes: the ledger's event loop spends ${(readCpu.main / Math.max(1, readCalls)).toFixed(3)} ms on a GetBalances call; ` +
        `its command path alone costs ${(pathCpuMs / Math.max(1, pathPostings)).toFixed(3)} ms of CPU per posting (this process)`,
    );
    const ratio = (a: number, b: number) => (b > 0 ? +(a / b).toFixed(3) : NaN);
    const pathFullVsNormal = ratio(pathFig.perSecond, figures.pathNormal.perSecond);
    console.log(
      `  durability: the command path posts ${pathFullVsNormal} × as fast with synchronous FULL (the ledger's) as with NORMAL`,
    );
    return {
      figures,
      ratios: {
        spreadVsEcho: ratio(spread.perSecond, echoFig.perSecond),
        spreadVsEchoTls: ratio(spread.perSecond, echoTlsFig.perSecond),
        hotVsEcho: ratio(hot.perSecond, echoFig.perSecond),
        hotVsSpread: ratio(hot.perSecond, spread.perSecond),
        hotLongVsSpread: ratio(long.perSecond, spread.perSecond),
        hotLongVsHotShort: ratio(long.perSecond, hot.perSecond),
        ...(others.length
          ? {
              others: Object.fromEntries(
                others.map((l, i) => [
                  l.name,
                  ratio(figures.otherSpreads[i]?.perSecond ?? NaN, echoFig.perSecond),
                ]),
              ),
            }
          : {}),
      },
      ledgers: o.ledgers.map((l) => l.name),
      hotPostings,
      hotStreamEvents,
      ...(cpu.length ? { cpu } : {}),
      breakdown: {
        readVsEcho: ratio(read.perSecond, echoFig.perSecond),
        readMainMsPerCall: +(readCpu.main / Math.max(1, readCalls)).toFixed(3),
        pathVsEcho: ratio(pathFig.perSecond, echoFig.perSecond),
        pathCpuMsPerPosting: +(pathCpuMs / Math.max(1, pathPostings)).toFixed(3),
        pathFullVsNormal,
      },
    };
  } finally {
    await closePath();
    ec.close();
    tlsEc.close();
    for (const c of clients) {
      c.user.close();
      c.service.close();
    }
  }
}

/** The target's CPU once it has gone quiet (its consumers drained the postings' events), at most 60 s on. */
async function settledCpu(pid: number): Promise<{ main: number; threads: number }> {
  let last = threadCpuMs(pid);
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const now = threadCpuMs(pid);
    const busy = now.main + now.threads - (last.main + last.threads);
    if (busy < 30) return last; // under 6 % of a core: idle (timers, polls)
    last = now;
  }
  return last;
}
