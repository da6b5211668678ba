/**
 * `make chaos`: the nemesis of ./chaos.ts on the production topology for CHAOS_MINUTES (default 3; `make test`
 * runs it for 2). At the end, with every process back: every accepted command applied exactly once and no
 * refused one (each investor's balances as the workload's model says), the ledger sums to zero and its hash
 * chains verify (verify-ledger), the ledger's read models equal their rebuild from its log, every email sent once, no event lost
 * or dead-lettered (./invariants.ts), and no answer but 2xx, an expected 4xx, or 503/502/504 during an outage.
 * Prints the faults injected, the commands, the retries and the anomalies.
 */
import { testEnv } from '../helpers/testEnv.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { readModelRebuildProblems } from '@meridian/ledger/testing/invariants';
import { FAST_PLANS } from '@meridian/gateway/testing/money';
import { SERVICES, type Cluster } from '../../scripts/cluster/cluster.js';
import { main as verifyLedger } from '../../scripts/verify-ledger.js';
import { runChaos } from './chaos.js';
import { expectClusterInvariants } from './invariants.js';
import { clusterSkipReason, startTestCluster } from './testCluster.js';

const MINUTES = testEnv().CHAOS_MINUTES;
const skipReason = clusterSkipReason();
if (skipReason) console.log(`[skip] chaos: ${skipReason}`);

describe.skipIf(skipReason !== null)(`chaos: a nemesis for ${MINUTES} min on the cluster`, () => {
  let cluster: Cluster;
  let starting: ReturnType<typeof startTestCluster> | undefined;
  let failed = false;
  beforeAll(async () => {
    ({ cluster } = await (starting = startTestCluster({
      // the drills use 30050, the browser journeys 30150, bench 30250; CHAOS_GRPC_BASE runs a second nemesis beside
      grpcBase: testEnv().CHAOS_GRPC_BASE,
      env: {
        PLANS_JSON: FAST_PLANS,
        LOG_LEVEL: 'info',
        ADMIN_EMAIL: 'chaos-admin@example.com',
        ADMIN_PASSWORD: 'Chaos-Admin-Passw0rd!',
      },
    })));
  }, 240_000);
  afterAll(async () => {
    // a start still running when beforeAll timed out is stopped once it is up (it cleans up itself if it fails)
    // a failed run keeps the processes' logs for reading (artifacts/chaos-logs-<time>)
    const keepLogsIn = failed ? join('artifacts', `chaos-logs-${new Date().toISOString()}`) : undefined;
    await (await starting?.catch(() => undefined))?.stop({ keepLogsIn });
  }, 360_000);

  it(
    'every accepted command applied once, nothing refused applied, the ledger and every store consistent',
    { timeout: (MINUTES + 8) * 60_000 },
    async () => {
      onTestFailed(() => {
        failed = true;
      });
      const report = await runChaos({
        cluster,
        minutes: MINUTES,
        // the cluster's own Redis (append-only file), never the machine's shared one
        restartRedis: () => cluster.redis!.restart(),
        log: (line) => console.log(`[chaos] ${line}`),
      });
      // everything back before the checks
      for (const name of [...SERVICES, 'gateway-a', 'gateway-b'] as const)
        await cluster.waitReady(name, 90_000);
      for (const inv of report.investors) {
        let shown: Record<string, unknown> = {};
        await waitFor(
          async () => {
            const r = await inv.browser.get('/api/users/getUser');
            shown = {
              balance: r.body.balance,
              investmentBalance: r.body.investmentBalance,
              totalMaturityAmount: r.body.totalMaturityAmount,
            };
            return JSON.stringify(shown) === JSON.stringify(inv.expected);
          },
          { timeoutMs: 90_000, intervalMs: 500, message: 'balances' },
        ).catch(() => undefined);
        if (JSON.stringify(shown) !== JSON.stringify(inv.expected))
          report.anomalies.push(
            `user ${inv.id}: expected ${JSON.stringify(inv.expected)}, shown ${JSON.stringify(shown)}`,
          );
      }
      console.log(
        `chaos: ${MINUTES} min, ${report.faults.length} faults injected (${report.faults.join(', ')}), ` +
          `${report.commands} commands, ${report.retries} retries, ${report.anomalies.length} anomalies`,
      );
      expect(report.faults.length).toBeGreaterThan(0);
      expect(report.commands).toBeGreaterThan(0);
      expect(report.anomalies).toEqual([]);
      const out: string[] = [];
      const verified = await verifyLedger(['--data', join(cluster.dir, 'ledger')], {
        log: (l) => void out.push(l),
        error: (l) => void out.push(l),
      });
      expect([verified, out.join('\n')]).toEqual([0, expect.stringMatching(/^Ledger intact/)]);
      await expectClusterInvariants(
        cluster,
        report.investors.map((i) => ({ id: i.id, browser: i.browser })),
      );
      // the ledger's read models equal their rebuild from its log (on a copy: the rebuild replaces them)
      const copy = join(cluster.dir, 'ledger-rebuild.sqlite');
      const live = new Database(join(cluster.dir, 'ledger', 'ledger.sqlite'), { readonly: true });
      try {
        await live.backup(copy);
      } finally {
        live.close();
      }
      const store = createSqliteServiceStore(copy);
      try {
        expect(await readModelRebuildProblems(store)).toEqual([]);
      } finally {
        await store.close();
      }
    },
  );
});
