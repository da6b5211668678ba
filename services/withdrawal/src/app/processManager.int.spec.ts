/**
 * The withdrawal process manager on two replicas: two store instances on ONE SQLite file. The lease
 * lets one of them sweep: each request left without a hold outcome is re-driven once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { LEASES, type LeaseRecord } from '@meridian/platform/app/lease';
import { unavailable } from '@meridian/platform/eventSourcing/errors';
import { createLogger } from '@meridian/platform/logger';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { sqliteReplicaStores } from '@meridian/platform/testing/replicaStores';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { withdrawalView } from '../projections/withdrawalView.js';
import type { WithdrawalContext } from './context.js';
import type { LedgerPort } from './ports.js';
import { PROCESS_MANAGER_LEASE, startProcessManager } from './processManager.js';
import { requestWithdrawal } from './withdrawals.js';

const dir = tempDir('meridian-withdrawal-replicas-');
afterAll(() => dir.remove());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

it('two process managers on one store re-drive each lost hold once', async () => {
  const stores = sqliteReplicaStores(join(dir.path, `${randomUUID()}.sqlite`));
  cleanups.push(() => Promise.all(stores.map((s) => s.close())));
  // a ledger that answers nothing while down, then holds (idempotent per hold id), counting the calls
  let down = true;
  const holds = new Map<string, number>();
  const ledger: LedgerPort = {
    placeHold: async ({ holdId }) => {
      if (down) throw unavailable('ledger down');
      holds.set(holdId, (holds.get(holdId) ?? 0) + 1);
    },
    captureHold: async () => undefined,
    releaseHold: async () => undefined,
    settleMaturity: async () => undefined,
    getBalances: async () => ({ depositCents: 0, investedCents: 0, profitCents: 1_000_000 }),
  };
  const ctxs: WithdrawalContext[] = stores.map((store) => ({
    store,
    ledger,
    clock: () => new Date(),
    newId: randomUUID,
    logger: createLogger('withdrawal-test', { level: 'silent' }),
    personalData: new PersonalData(new MemoryPersonalDataKeys()),
  }));
  const lost: string[] = [];
  for (let i = 0; i < 10; i++) {
    const withdrawalId = `wd-${randomUUID()}`;
    const actor = { userId: `u-${randomUUID()}`, role: 'subscriber' };
    await requestWithdrawal(ctxs[i % 2], {
      actor,
      isVerified: true,
      kycStatus: 'Approved',
      amount: '100',
      walletAddress: WALLET,
      withdrawalId,
    }).catch(() => undefined);
    lost.push(withdrawalId);
  }
  expect(await stores[0].count(withdrawalView.collection, { sync: 'hold' })).toBe(10);

  down = false;
  const managers = ctxs.map((ctx, i) =>
    startProcessManager(ctx, {
      intervalMs: 60_000,
      lease: { ttlMs: 2_000, pollMs: 20, owner: `replica-${i}` },
    }),
  );
  cleanups.push(() => Promise.all(managers.map((m) => m.stop())));
  await waitFor(
    async () => (await stores[1].count(withdrawalView.collection, { sync: 'hold' })) === 0,
    'all holds re-driven',
  );
  expect(Object.fromEntries(holds)).toEqual(Object.fromEntries(lost.map((id) => [id, 1])));
  const owner = (await stores[0].get<LeaseRecord>(LEASES, PROCESS_MANAGER_LEASE))?.owner;
  expect(await managers[owner === 'replica-0' ? 1 : 0].sweep(0)).toBe(0); // the standby does nothing
});
