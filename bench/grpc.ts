/**
 * Ledger postings per second through gRPC, on the standalone target's ledger (its LEDGER_GRPC_ADDR is
 * chosen by the bench), against a raw grpc-js unary echo measured the same way in the same run.
 *
 * Every call is one posting: an admin AdjustBalance "add $1" to a Deposit Balance (a two-entry
 * LedgerTransaction against platform:adjustment, with a fresh idempotency key), so the spread and hot
 * runs differ only in where the postings land:
 *   - spread: round-robin over BENCH_SPREAD_USERS users' ledger streams (default 1000);
 *   - hot:    every posting on ONE user's ledger stream (the stream every command reads and appends to).
 * The three runs (echo, spread, hot) are interleaved in BENCH_ROUNDS slices (A B C, C B A, …) so a
 * machine whose load drifts during the run, and the target's event backlog after a run, weigh on all
 * of them alike; each figure is its slices' calls over their summed wall time.
 */
import { randomUUID } from 'node:crypto';
import { callUnary, createGrpcClient, waitForClientReady } from '@meridian/platform/grpc/index';
import {
  AdjustBalanceRequest,
  AdjustmentOperation,
  BalanceAccount,
  LedgerServiceClient,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { echo, echoClient } from './echoService.js';
import { figure, runSlice, type LoadFigure, type LoadSlice } from './load.js';

export interface GrpcBenchOptions {
  seconds: number;
  maxCount: number;
  concurrency: number;
  spreadUsers: number;
  /** The time and count of each run are split into this many slices, run interleaved (A B C, C B A, …). */
  rounds: number;
  echoAddress: string;
  ledgerAddress: string;
  log(figure: LoadFigure, unit: string): void;
}

export interface GrpcBenchResult {
  figures: LoadFigure[];
  ratios: {
    /** ledger postings/s (spread) ÷ bare gRPC echo calls/s */
    spreadVsEcho: number;
    /** ledger postings/s (hot account) ÷ bare gRPC echo calls/s */
    hotVsEcho: number;
    /** hot ÷ spread */
    hotVsSpread: number;
  };
  /** Postings on the hot user's ledger stream at the end (each command reads and folds the whole stream). */
  hotPostings: number;
}

const WARMUP_CALLS = 200;

export async function benchGrpc(o: GrpcBenchOptions): Promise<GrpcBenchResult> {
  const rounds = Math.max(1, Math.floor(o.rounds));
  const slice = (
    call: (i: number) => Promise<unknown>,
    maxCount = Math.ceil(o.maxCount / rounds),
    seconds = o.seconds / rounds,
  ) => runSlice({ seconds, maxCount, concurrency: o.concurrency, call });

  const ec = echoClient(o.echoAddress);
  const ledger = createGrpcClient(LedgerServiceClient, o.ledgerAddress);
  try {
    await waitForClientReady(ec, 5_000);
    await waitForClientReady(ledger, 10_000);

    // baseline: raw grpc-js unary echo of a 64-byte payload (about the size of a small request)
    const payload = Buffer.alloc(64, 1);
    const callEcho = () => echo(ec, payload);

    // the ledger: one posting per call (AdjustBalance add $1 to a Deposit Balance, fresh key)
    const admin = {
      userId: `bench-admin-${randomUUID()}`,
      sessionId: 'bench',
      impersonatorId: '',
      correlationId: '',
    };
    const tag = randomUUID().slice(0, 8);
    const post = (userId: string) =>
      callUnary(
        ledger,
        'adjustBalance',
        AdjustBalanceRequest.fromPartial({
          caller: admin,
          callerRole: 'admin',
          userId,
          account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
          operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
          amount: '1',
          reason: 'bench',
          idempotencyKey: randomUUID(),
        }),
      );
    let spreadNext = 0;
    const callSpread = () => post(`bench-${tag}-spread-${spreadNext++ % o.spreadUsers}`);
    const hotUser = `bench-${tag}-hot`;
    const callHot = () => post(hotUser);

    await slice(callEcho, WARMUP_CALLS);
    await slice((i) => post(`bench-${tag}-warmup-${i % 20}`), WARMUP_CALLS);
    await post(hotUser); // the hot account exists before its first slice
    let hotPostings = 1;

    const runs = [
      { name: 'baseline: grpc-js unary echo', unit: 'calls/s', call: callEcho, slices: [] as LoadSlice[] },
      {
        name: `ledger: postings, ${o.spreadUsers} users`,
        unit: 'postings/s',
        call: callSpread,
        slices: [] as LoadSlice[],
      },
      {
        name: 'ledger: postings, one hot account',
        unit: 'postings/s',
        call: callHot,
        slices: [] as LoadSlice[],
      },
    ];
    for (let r = 0; r < rounds; r++) {
      for (const run of r % 2 === 0 ? runs : [...runs].reverse()) {
        const s = await slice(run.call);
        run.slices.push(s);
        if (run.call === callHot) hotPostings += s.latencies.length;
      }
    }
    const figures = runs.map((run) => {
      const f = figure(run.name, run.slices);
      o.log(f, run.unit);
      return f;
    });
    const [echoFig, spread, hot] = figures;
    const ratio = (a: number, b: number) => (b > 0 ? +(a / b).toFixed(3) : NaN);
    return {
      figures,
      ratios: {
        spreadVsEcho: ratio(spread.perSecond, echoFig.perSecond),
        hotVsEcho: ratio(hot.perSecond, echoFig.perSecond),
        hotVsSpread: ratio(hot.perSecond, spread.perSecond),
      },
      hotPostings,
    };
  } finally {
    ec.close();
    ledger.close();
  }
}
