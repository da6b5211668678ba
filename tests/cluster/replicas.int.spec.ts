/**
 * Replicas on the production topology: `make cluster CLUSTER_REPLICAS=2` runs two processes of every
 * service on the service's one store, each its own gRPC port, every client's target listing both (round
 * robin, platform grpc/client.ts). Proven from each process's own metrics: both replicas of every service
 * answer calls; a replica SIGKILLed during concurrent money commands loses none and doubles none (the
 * other keeps answering; ./invariants.ts); the spec's journey passes with two of everything; a KYC upload
 * reaches the other kyc replica while the first is down (the gateways' one document URL is the cluster's front
 * of both). Skipped, with the reason printed, where Java/Maven (the broker) or Redis are missing.
 */
import { testEnv } from '../helpers/testEnv.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { HttpSession } from '@meridian/gateway/testing/httpSession';
import { signIn, verifiedUser, type Account } from '@meridian/gateway/testing/composition';
import { FAST_PLANS, waitForBalances } from '@meridian/gateway/testing/money';
import { SERVICES, type Cluster, type ProcessName, type ServiceName } from '../../scripts/cluster/cluster.js';
import { editsOver, editsThroughKill } from './balanceEdits.js';
import { expectClusterInvariants, invariantAccount } from './invariants.js';
import { clusterSkipReason, runSpecJourneyAcrossGateways, startTestCluster } from './testCluster.js';
import { KYC_BACK, KYC_FRONT, kycDocumentsOf, submitKyc } from '@meridian/gateway/testing/kyc';

const skipReason = clusterSkipReason();
if (skipReason) console.log(`[skip] cluster replica drills: ${skipReason}`);

const SLOW = { timeoutMs: 60_000, intervalMs: 100 };
const HEALTH = 'grpc.health.v1.Health';

/** The gRPC calls a process has answered (any status), health checks left out: from its own /metrics. */
async function callsAnswered(cluster: Cluster, name: ProcessName): Promise<number> {
  const text = await (await fetch(cluster.metricsUrl(name), { signal: AbortSignal.timeout(5_000) })).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^grpc_server_handling_seconds_count\{([^}]*)\} (\d+)/.exec(line);
    if (m && !m[1].includes(`grpc_service="${HEALTH}"`)) total += Number(m[2]);
  }
  return total;
}

async function answeredByReplica(cluster: Cluster): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const service of SERVICES)
    for (const name of cluster.replicasOf(service)) out[name] = await callsAnswered(cluster, name);
  return out;
}

describe.skipIf(skipReason !== null)(
  'two processes of every service on one store (CLUSTER_REPLICAS=2)',
  () => {
    let cluster: Cluster;
    let A: string;
    let B: string;
    let admin: HttpSession; // on gateway B
    const users: Account[] = [];

    let starting: ReturnType<typeof startTestCluster> | undefined;
    beforeAll(async () => {
      const t0 = Date.now();
      ({ cluster } = await (starting = startTestCluster({
        grpcBase: 30450, // its own ports: drills 30050, browser journeys 30150, bench 30250, chaos 30350
        replicas: 2,
        env: {
          PLANS_JSON: FAST_PLANS,
          LOG_LEVEL: 'info',
          ADMIN_EMAIL: 'replica-admin@example.com',
          ADMIN_PASSWORD: 'Replica-Admin-Passw0rd!',
        },
      })));
      console.log(`replica drills: ${cluster.processes.length} processes up in ${Date.now() - t0} ms`);
      [A, B] = cluster.urls;
      admin = new HttpSession(B);
      await signIn(admin, cluster.admin.email, cluster.admin.password);
    }, 300_000);

    afterAll(async () => {
      // REPLICA_DRILL_LOGS=<dir>: the processes' logs are kept there
      await (await starting?.catch(() => undefined))?.stop({ keepLogsIn: testEnv().REPLICA_DRILL_LOGS });
    }, 360_000);

    it(
      "the spec's journey passes with two of everything, and both replicas of every service answer its calls",
      { timeout: 240_000 },
      async () => {
        const before = await answeredByReplica(cluster);
        const { investor, referred } = await runSpecJourneyAcrossGateways(cluster, SLOW.timeoutMs);
        // a client's first calls go to the connection that was ready first, and a service the journey calls
        // only a few times (kyc, and support, which is no part of it) may not have reached its second replica:
        // the admin's reads of those services, through both gateways in turn, until every replica has answered
        const gateways = [A, B].map((url) => {
          const s = new HttpSession(url);
          for (const [k, v] of admin.cookies) s.cookies.set(k, v);
          return s;
        });
        const reads = ['/api/support/conversations/mine', '/api/users/kyc/pending'];
        let n = 0;
        await waitFor(
          async () => {
            const r = await gateways[n % 2].get(reads[Math.floor(n / 2) % reads.length]);
            n++;
            expect(r.status).toBeLessThan(500);
            for (const service of SERVICES)
              for (const name of cluster.replicasOf(service))
                if ((await callsAnswered(cluster, name)) === before[name]) return false;
            return true;
          },
          { ...SLOW, timeoutMs: 30_000, message: 'calls answered by every replica' },
        );
        const after = await answeredByReplica(cluster);
        const served = Object.fromEntries(
          Object.keys(after).map((name) => [name, after[name] - before[name]]),
        );
        console.log(`replica drills: calls answered during the journey ${JSON.stringify(served)}`);
        for (const service of SERVICES as readonly ServiceName[])
          for (const name of cluster.replicasOf(service))
            expect({ name, served: served[name] > 0 }).toEqual({ name, served: true });

        users.push(invariantAccount(A, investor), invariantAccount(A, referred));
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      'kill -9 one ledger replica during 200 concurrent money commands: the other answers, each command applies once',
      { timeout: 180_000 },
      async () => {
        const investors = await Promise.all(Array.from({ length: 10 }, () => verifiedUser(A)));
        users.push(...investors);
        const { edits, expected } = editsOver(investors, 200, 'replica-drill');
        const [first, second] = cluster.replicasOf('ledger');
        const killedPid = cluster.pid(first);
        let secondAtKill = 0;
        const { doneAtKill, retried } = await editsThroughKill(
          edits,
          // the two gateways, half each
          (i) => {
            const session = new HttpSession(i % 2 ? A : B);
            for (const [k, v] of admin.cookies) session.cookies.set(k, v);
            return session;
          },
          async () => {
            await cluster.kill(first);
            secondAtKill = await callsAnswered(cluster, second);
          },
        );
        expect(doneAtKill).toBeLessThan(200);
        console.log(
          `replica kill drill: ${retried} client retries, ${200 - doneAtKill} commands after the kill of ${first}`,
        );
        expect(cluster.pid(first)).not.toBe(killedPid); // the supervisor restarted it
        // the surviving replica answered commands after the kill (its own counter, not the restarted one's)
        expect(await callsAnswered(cluster, second)).toBeGreaterThan(secondAtKill);
        // an admin edit adds to Total Profit (totalMaturityAmount): each command exactly once
        for (const u of investors)
          await waitForBalances(u.browser, { balance: 0, totalMaturityAmount: expected.get(u.id)! }, SLOW);
        await expectClusterInvariants(cluster, users);
      },
    );

    it(
      'kill -9 the first kyc replica: a KYC upload through the gateway reaches the other, and the admin reads both documents',
      { timeout: 120_000 },
      async () => {
        const investor = await verifiedUser(A);
        const [first] = cluster.replicasOf('kyc');
        const killedPid = cluster.pid(first);
        await cluster.kill(first);
        await submitKyc(investor, SLOW);
        expect(await kycDocumentsOf(admin, investor.id)).toEqual([KYC_FRONT, KYC_BACK]);
        await cluster.waitReady(first);
        expect(cluster.pid(first)).not.toBe(killedPid); // the supervisor restarted it
      },
    );
  },
);
