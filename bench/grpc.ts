/**
 * Ledger postings per second through gRPC, on the standalone target's ledger (its LEDGER_GRPC_ADDR is
 * chosen by the bench), against a raw grpc-js unary echo measured the same way in the same run.
 *
 * Every call is one posting: an admin AdjustBalance "add $1" to a Deposit Balance (a two-entry
 * LedgerTransaction against platform:adjustment, with a fresh idempotency key), so the spread and hot
 * runs differ only in where the postings land:
 *   - spread: round-robin over BENCH_SPREAD_USERS users' ledger streams (default 1000);
 *   - hot:    every posting on ONE user's ledger stream (the stream every command reads and appends to).
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
import { runLoad, type LoadFigure } from './load.js';

export interface GrpcBenchOptions {
  seconds: number;
  maxCount: number;
  concurrency: number;
  spreadUsers: number;
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
  hotStreamLength: number;
}

const WARMUP_CALLS = 200;

export async function benchGrpc(o: GrpcBenchOptions): Promise<GrpcBenchResult> {
  const run = (name: string, call: (i: number) => Promise<unknown>, maxCount = o.maxCount) =>
    runLoad({ name, seconds: o.seconds, maxCount, concurrency: o.concurrency, call });

  // ---- baseline: raw grpc-js unary echo (a 64-byte payload, about the size of a small request)
  const ec = echoClient(o.echoAddress);
  const figures: LoadFigure[] = [];
  try {
    await waitForClientReady(ec, 5_000);
    const payload = Buffer.alloc(64, 1);
    await run('warm-up echo', () => echo(ec, payload), WARMUP_CALLS);
    const e = await run('baseline: grpc-js unary echo', () => echo(ec, payload));
    o.log(e, 'calls/s');
    figures.push(e);
  } finally {
    ec.close();
  }

  // ---- the ledger of the standalone target
  const ledger = createGrpcClient(LedgerServiceClient, o.ledgerAddress);
  try {
    await waitForClientReady(ledger, 10_000);
    const admin = { userId: `bench-admin-${randomUUID()}`, sessionId: 'bench', impersonatorId: '', correlationId: '' };
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
    const spreadUser = (i: number) => `bench-${tag}-spread-${i % o.spreadUsers}`;
    await run('warm-up ledger', (i) => post(`bench-${tag}-warmup-${i % 20}`), WARMUP_CALLS);

    const spread = await run(`ledger: postings, ${o.spreadUsers} users`, (i) => post(spreadUser(i)));
    o.log(spread, 'postings/s');
    figures.push(spread);

    const hotUser = `bench-${tag}-hot`;
    const hot = await run('ledger: postings, one hot account', () => post(hotUser));
    o.log(hot, 'postings/s');
    figures.push(hot);

    const [echoFig] = figures;
    const ratio = (a: number, b: number) => (b > 0 ? +(a / b).toFixed(3) : NaN);
    return {
      figures,
      ratios: {
        spreadVsEcho: ratio(spread.perSecond, echoFig.perSecond),
        hotVsEcho: ratio(hot.perSecond, echoFig.perSecond),
        hotVsSpread: ratio(hot.perSecond, spread.perSecond),
      },
      hotStreamLength: hot.count,
    };
  } finally {
    ledger.close();
  }
}
