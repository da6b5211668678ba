/**
 * The ledger process killed (SIGKILL) in the middle of a close-of-business batch (SettleMaturities). Every
 * chunk it committed stays settled whole and none half: a chunk, two users' items decided in memory and
 * written as one append each, is one store transaction. The same call after the restart settles the rest.
 * Each investment is settled exactly once; the balances are exact; the hash chains and the ledger's
 * invariants hold.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { MATURITY_CHUNK } from '@meridian/ledger/app/money';
import { verifyLedgerStore } from '@meridian/ledger/statements';
import { createGrpcLedger } from '@meridian/ledger/client/ledgerPort.grpc';
import { type BalancesDoc, COLLECTIONS, type TransactionDoc } from '@meridian/ledger/projections/views';
import { ledgerInvariantProblems } from '@meridian/ledger/testing/invariants';
import { seedCapturedHolds } from '@meridian/ledger/testing/seedHolds';
import { startLedgerProcess } from '@meridian/ledger/testing/ledgerProcess';
import { ROOT } from '../support/standalone.js';

const dir = tempDir('meridian-ledger-kill-');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  dir.remove();
});

const USERS = 24;
/** Half a chunk per user: every chunk spans two users' appends. */
const PER_USER = MATURITY_CHUNK / 2;
const PRINCIPAL = 10_000;
const MATURITY = 11_000;

const startLedger = () => startLedgerProcess({ dataDir: dir.path, onSpawn: (child) => children.push(child) });

/** The maturity postings on the ledger's file, per investment. */
async function maturitiesOn(store: ServiceStore): Promise<Map<string, number>> {
  const posted = await store.find<TransactionDoc>(COLLECTIONS.transactions, {
    where: { reason: 'investment_matured' },
  });
  const per = new Map<string, number>();
  for (const t of posted) per.set(t.investmentId!, (per.get(t.investmentId!) ?? 0) + 1);
  return per;
}

const skip = existsSync(join(ROOT, 'node_modules/tsx'))
  ? null
  : 'node_modules/tsx is missing (run npm install)';
if (skip) console.log(`[skip] the ledger process killed mid-batch: ${skip}`);

it.skipIf(skip !== null)(
  'SIGKILL mid-batch: the committed chunks whole, none half; the same call after the restart settles the rest, each exactly once',
  { timeout: 240_000 },
  async () => {
    const file = join(dir.path, 'ledger.sqlite');
    const holds = Array.from({ length: USERS * PER_USER }, (_, i) => ({
      userId: `investor-${Math.floor(i / PER_USER)}`,
      holdId: `inv-${i}`,
    }));
    const seeding = createSqliteServiceStore(file);
    await seedCapturedHolds(seeding, holds, PRINCIPAL);
    await seeding.close();
    const items = holds.map(({ userId, holdId }) => ({
      userId,
      investmentId: holdId,
      principalCents: PRINCIPAL,
      maturityAmountCents: MATURITY,
      idempotencyKey: `maturity:${holdId}`,
    }));

    // the batch, and SIGKILL as soon as its first chunk has committed
    const first = await startLedger();
    const reader = createSqliteServiceStore(file);
    const port = createGrpcLedger(first.address, { deadlineMs: 120_000 });
    const call = port.settleMaturities!(items).then(
      () => 'answered',
      (err: unknown) => String(err),
    );
    await waitFor(
      async () => (await reader.count(COLLECTIONS.transactions, { reason: 'investment_matured' })) > 0,
      {
        timeoutMs: 120_000,
        intervalMs: 10,
        message: 'the first chunk committed',
      },
    );
    first.child.kill('SIGKILL');
    const answer = await call;
    port.close();
    await waitFor(() => first.child.exitCode !== null || first.child.signalCode !== null, {
      timeoutMs: 10_000,
      message: 'the ledger process is gone',
    });
    expect(answer, 'the call was cut off, not answered').not.toBe('answered');

    // what it had committed: whole chunks, each investment once
    const before = await maturitiesOn(reader);
    expect(before.size).toBeGreaterThan(0);
    expect(before.size).toBeLessThan(items.length);
    expect(before.size % MATURITY_CHUNK).toBe(0);
    expect([...before.values()].every((n) => n === 1)).toBe(true);

    // restarted on the same files: the same call settles the rest and nothing twice
    const second = await startLedger();
    const again = createGrpcLedger(second.address, { deadlineMs: 120_000 });
    const results = await again.settleMaturities!(items);
    again.close();
    expect(results.filter((r) => !r.settled)).toEqual([]);
    second.child.kill('SIGTERM');
    await waitFor(() => second.child.exitCode !== null, { timeoutMs: 30_000, message: 'the ledger stopped' });

    const after = await maturitiesOn(reader);
    expect(after.size).toBe(items.length);
    expect([...after.values()].every((n) => n === 1)).toBe(true);
    for (let u = 0; u < USERS; u++) {
      const b = await reader.get<BalancesDoc>(COLLECTIONS.balances, `investor-${u}`);
      expect(b).toMatchObject({ depositCents: 0, investedCents: 0, profitCents: PER_USER * MATURITY });
    }
    expect((await verifyLedgerStore(reader)).intact).toBe(true);
    expect(await ledgerInvariantProblems(reader)).toEqual([]);
    await reader.close();
  },
);
