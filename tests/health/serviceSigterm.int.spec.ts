/**
 * SIGTERM to a service process under gRPC load: the ledger, run as in a
 * container (`node --import tsx services/ledger/src/main.ts`, SQLite store, the in-process bus), answers 10 concurrent
 * loops of CreateDeposit (each with its idempotency key) on one channel; SIGTERM mid-load:
 * - gRPC health says NOT_SERVING and /readyz 503 (draining) while the calls in flight go on;
 * - every call ends OK or, once the server is gone, UNAVAILABLE (never CANCELLED, INTERNAL or a deadline);
 * - the process exits 0 within the grace period;
 * - after a restart on the same DATA_DIR every deposit acknowledged is there, with its amount.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { LedgerServiceClient } from '@meridian/proto/meridian/ledger/v1/ledger';
import { HealthClient, ServingStatus, callUnary, createGrpcClient } from '@meridian/platform/grpc/index';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { startLedgerProcess } from '@meridian/ledger/testing/ledgerProcess';
import { freePort } from '@meridian/platform/util/freePort';
import { ROOT } from '../support/standalone.js';

const tsx = join(ROOT, 'node_modules/tsx');
const skipReason = existsSync(tsx) ? null : 'node_modules/tsx is missing (run npm install)';
if (skipReason) console.log(`[skip] SIGTERM to a service process: ${skipReason}`);

const dir = tempDir('meridian-service-sigterm-');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  dir.remove();
});

const LOOPS = 10;

const startLedger = (grpcPort: number, metricsPort: number) =>
  startLedgerProcess({
    dataDir: dir.path,
    grpcPort,
    metricsPort,
    // one user's deposits in a loop: the cap on pending deposits lifted (pendingCount.int.spec.ts tests it)
    env: { SHUTDOWN_DELAY_MS: '500', LEDGER_MAX_PENDING_DEPOSITS: '1000000' },
    onSpawn: (child) => children.push(child),
  });

function grpcHealth(client: HealthClient): Promise<ServingStatus> {
  return new Promise<ServingStatus>((resolve, reject) =>
    client.check({ service: '' }, new grpc.Metadata(), { deadline: Date.now() + 3_000 }, (err, res) =>
      err ? reject(err) : resolve(res!.status),
    ),
  );
}

describe.skipIf(skipReason !== null)('SIGTERM to a service process under gRPC load', () => {
  it(
    'calls in flight complete, later ones are UNAVAILABLE, exit 0 within the grace period, every acknowledged deposit kept',
    { timeout: 240_000 },
    async () => {
      const [grpcPort, metricsPort] = [await freePort(), await freePort()];
      const address = `127.0.0.1:${grpcPort}`;
      const ledger = await startLedger(grpcPort, metricsPort);
      const client = createGrpcClient(LedgerServiceClient, address);
      const health = new HealthClient(address, grpc.credentials.createInsecure());
      const userId = `sigterm-user-${randomUUID()}`;
      const acked: Array<{ id: string; cents: number }> = [];
      const ends: Array<{ at: number; code: number; details?: string }> = [];
      let seq = 0;
      let signalAt = 0;
      const loop = async () => {
        for (;;) {
          const cents = 100 + (seq++ % 10_000);
          try {
            const d = await callUnary(client, 'createDeposit', {
              caller: { userId, sessionId: 'sigterm', impersonatorId: '', correlationId: '' },
              callerRole: 'subscriber',
              amount: (cents / 100).toFixed(2),
              emailVerified: true,
              idempotencyKey: randomUUID(),
            });
            acked.push({ id: d.depositId, cents });
            ends.push({ at: Date.now(), code: grpc.status.OK });
          } catch (err) {
            const e = err as grpc.ServiceError;
            ends.push({ at: Date.now(), code: e.code, details: e.details });
            return;
          }
        }
      };
      const loops = Array.from({ length: LOOPS }, loop);
      await waitFor(() => acked.length >= 50, { timeoutMs: 60_000, message: '50 deposits acknowledged' });

      expect(await grpcHealth(health)).toBe(ServingStatus.SERVING); // its channel is up before the signal
      const exited = new Promise<number | null>((resolve) =>
        ledger.child.once('exit', (code) => resolve(code)),
      );
      signalAt = Date.now();
      ledger.child.kill('SIGTERM');
      // unready at once, while it still serves
      const status = await waitFor(
        async () => {
          const s = await grpcHealth(health).catch((e: grpc.ServiceError) => `error ${e.code} ${e.details}`);
          return s === ServingStatus.NOT_SERVING ? s : null;
        },
        { timeoutMs: 5_000, intervalMs: 20, message: 'gRPC health NOT_SERVING after SIGTERM' },
      );
      expect(status).toBe(ServingStatus.NOT_SERVING);
      const readyz = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
      expect(readyz.status).toBe(503);
      await Promise.all(loops);
      const code = await exited;
      const exitMs = Date.now() - signalAt;
      client.close();
      health.close();

      expect(code, ledger.output()).toBe(0);
      expect(exitMs).toBeLessThan(20_000);
      const failures = ends.filter((e) => e.code !== grpc.status.OK && e.code !== grpc.status.UNAVAILABLE);
      expect(failures).toEqual([]);
      const afterSignal = ends.filter((e) => e.code === grpc.status.OK && e.at >= signalAt).length;
      console.log(
        `[service sigterm] ${acked.length} deposits acknowledged (${afterSignal} after SIGTERM), ` +
          `${ends.filter((e) => e.code === grpc.status.UNAVAILABLE).length} UNAVAILABLE, exit 0 after ${exitMs} ms`,
      );

      // after a restart: every acknowledged deposit is there
      const again = await startLedger(grpcPort, metricsPort);
      const reader = createGrpcClient(LedgerServiceClient, address);
      try {
        const seen = await Promise.all(
          acked.map(async (a) => {
            const d = await callUnary(reader, 'getDeposit', {
              caller: { userId, sessionId: 'sigterm', impersonatorId: '', correlationId: '' },
              callerRole: 'subscriber',
              depositId: a.id,
            });
            return [d.depositId, Number(d.amountCents)];
          }),
        );
        expect(seen).toEqual(acked.map((a) => [a.id, a.cents]));
      } finally {
        reader.close();
        const stopped = new Promise<number | null>((resolve) => again.child.once('exit', (c) => resolve(c)));
        again.child.kill('SIGTERM');
        expect(await stopped).toBe(0);
      }
    },
  );
});
