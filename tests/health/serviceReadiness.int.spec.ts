/**
 * Readiness and liveness of a service (readiness fails while a service
 * cannot reach its store or bus; liveness does not).
 *
 * - In process: the probes runServiceProgram serves on the metrics port, over a SQLite store and the
 *   in-process bus: ready, then the store closed → /readyz 503 naming the store, /healthz 200, gRPC health
 *   NOT_SERVING.
 * - A service process (the ledger, `node --import tsx services/ledger/src/main.ts` as in a container) on a real Kafka
 *   broker: ready; the broker stopped (its port dead) → /readyz 503 naming the bus while /healthz stays 200
 *   and gRPC health says NOT_SERVING; the broker back → ready and SERVING again; SIGTERM → /readyz 503
 *   (draining) until the process exits 0 within the grace period.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { HealthClient, ServingStatus, setGrpcServing, startGrpcServer } from '@meridian/platform/grpc/index';
import { startMetricsServer } from '@meridian/platform/metrics';
import { createReadiness, probeRoutes } from '@meridian/platform/readiness';
import { startTestKafka } from '@meridian/platform/testing/kafka';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { startLedgerProcess } from '@meridian/ledger/testing/ledgerProcess';
import { freePort } from '@meridian/platform/util/freePort';
import { ROOT } from '../support/standalone.js';

const dir = tempDir('meridian-readiness-');
afterAll(() => dir.remove());

/** GET a probe: status and JSON body. */
async function probe(base: string, path: '/healthz' | '/readyz') {
  const res = await fetch(new URL(path, base));
  return {
    status: res.status,
    body: (await res.json()) as { status: string; checks?: Record<string, string> },
  };
}

/** grpc.health.v1 Check of the whole server (''). */
function grpcHealth(address: string): Promise<ServingStatus> {
  const client = new HealthClient(address, grpc.credentials.createInsecure());
  return new Promise<ServingStatus>((resolve, reject) =>
    client.check({ service: '' }, new grpc.Metadata(), { deadline: Date.now() + 3_000 }, (err, res) =>
      err ? reject(err) : resolve(res!.status),
    ),
  ).finally(() => client.close());
}

describe('readiness in process (SQLite store, in-process bus)', () => {
  it('a closed store: /readyz 503 naming the store, /healthz 200, gRPC NOT_SERVING', async () => {
    const store = createSqliteServiceStore(join(dir.path, 'svc.sqlite'));
    const bus = createInProcEventBus({ path: join(dir.path, 'bus.sqlite') });
    const readiness = createReadiness({ checks: { store: store.ping, bus: bus.ready }, intervalMs: 100 });
    const off = readiness.onChange(setGrpcServing);
    const metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', routes: probeRoutes(readiness) });
    const grpcServer = await startGrpcServer({ address: '127.0.0.1:0', services: [] });
    const base = `http://127.0.0.1:${metrics.port}`;
    try {
      expect(await probe(base, '/readyz')).toEqual({
        status: 200,
        body: { status: 'ready', checks: { store: 'ok', bus: 'ok' } },
      });
      await waitFor(async () => (await grpcHealth(grpcServer.address)) === ServingStatus.SERVING, {
        timeoutMs: 5_000,
        message: 'gRPC SERVING',
      });

      await store.close();
      const down = await probe(base, '/readyz');
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('not ready');
      expect(down.body.checks).toEqual({ store: 'down: ServiceStore is closed', bus: 'ok' });
      expect(await probe(base, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      await waitFor(async () => (await grpcHealth(grpcServer.address)) === ServingStatus.NOT_SERVING, {
        timeoutMs: 5_000,
        message: 'gRPC NOT_SERVING while the store is down',
      });
      // the metrics are still served
      expect((await fetch(new URL('/metrics', base))).status).toBe(200);
    } finally {
      off();
      readiness.stop();
      setGrpcServing(true);
      await grpcServer.stop();
      await metrics.stop();
      await bus.close();
      await store.close();
    }
  });

  it('draining: /readyz 503 "draining" whatever the checks say', async () => {
    const readiness = createReadiness({ checks: { store: async () => undefined }, intervalMs: 0 });
    const metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', routes: probeRoutes(readiness) });
    const base = `http://127.0.0.1:${metrics.port}`;
    try {
      expect((await probe(base, '/readyz')).status).toBe(200);
      readiness.drain();
      expect(await probe(base, '/readyz')).toMatchObject({ status: 503, body: { status: 'draining' } });
      expect((await probe(base, '/healthz')).status).toBe(200);
    } finally {
      readiness.stop();
      await metrics.stop();
    }
  });
});

const kafka = await startTestKafka({ ownBroker: true });
const tsx = join(ROOT, 'node_modules/tsx');
const processSkip = !kafka.available
  ? `no Kafka broker of its own (${kafka.reason})`
  : !existsSync(tsx)
    ? 'node_modules/tsx is missing (run npm install)'
    : null;
if (processSkip) console.log(`[skip] a service process losing its Kafka broker: ${processSkip}`);
afterAll(() => kafka.stop());

describe.skipIf(processSkip !== null)(`a service process and its Kafka broker (${kafka.reason})`, () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it(
    'broker away: /readyz 503 naming the bus, /healthz 200, gRPC NOT_SERVING; back: ready again; SIGTERM: draining, exit 0',
    { timeout: 240_000 },
    async () => {
      const broker = kafka.broker!;
      const [grpcPort, metricsPort] = [await freePort(), await freePort()];
      const ledger = await startLedgerProcess({
        dataDir: dir.path,
        grpcPort,
        metricsPort,
        env: { KAFKA_BROKERS: kafka.brokers.join(','), SHUTDOWN_DELAY_MS: '300' },
      });
      child = ledger.child;
      const proc = ledger.child;
      const base = `http://127.0.0.1:${metricsPort}`;
      const grpcAddress = ledger.address;
      const alive = () => {
        if (proc.exitCode !== null)
          throw new Error(`the ledger exited with ${proc.exitCode}:\n${ledger.output()}`);
      };
      const readyz = async () => {
        alive();
        return probe(base, '/readyz').catch(() => null);
      };

      expect((await probe(base, '/readyz')).body.checks).toEqual({ store: 'ok', bus: 'ok' });
      expect(await grpcHealth(grpcAddress)).toBe(ServingStatus.SERVING);

      // the broker goes away: its port is dead
      await broker.stop();
      const down = await waitFor(
        async () => {
          const r = await readyz();
          return r?.status === 503 ? r : null;
        },
        { timeoutMs: 30_000, intervalMs: 200, message: '/readyz 503 while the broker is away' },
      );
      expect(down.body.status).toBe('not ready');
      expect(down.body.checks?.store).toBe('ok');
      expect(down.body.checks?.bus).toMatch(/^down: /);
      expect(await probe(base, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      await waitFor(async () => (await grpcHealth(grpcAddress)) === ServingStatus.NOT_SERVING, {
        timeoutMs: 15_000,
        intervalMs: 200,
        message: 'gRPC NOT_SERVING while the broker is away',
      });
      alive();

      // the broker is back on the same port
      await broker.start();
      await waitFor(async () => (await readyz())?.status === 200, {
        timeoutMs: 60_000,
        intervalMs: 200,
        message: 'ready again once the broker is back',
      });
      await waitFor(async () => (await grpcHealth(grpcAddress)) === ServingStatus.SERVING, {
        timeoutMs: 15_000,
        intervalMs: 200,
        message: 'gRPC SERVING again',
      });

      // SIGTERM: unready at once (the metrics port answers until the end), then exit 0 within the grace period
      const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
      const signalAt = Date.now();
      proc.kill('SIGTERM');
      const draining = await waitFor(
        async () => {
          const r = await probe(base, '/readyz').catch(() => null);
          return r?.status === 503 ? r : null;
        },
        { timeoutMs: 5_000, intervalMs: 20, message: '/readyz 503 after SIGTERM' },
      );
      expect(draining.body.status).toBe('draining');
      expect(await exited).toBe(0);
      const exitMs = Date.now() - signalAt;
      expect(exitMs).toBeLessThan(20_000);
      console.log(`[readiness] the ledger exited 0 ${exitMs} ms after SIGTERM`);
    },
  );
});
