// `make verify-ledger` (scripts/verify-ledger.ts) over a ledger database on disk: intact after real postings,
// then exit 1 with the first broken link once a stored transaction document is altered; exit 2 without one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { startLedgerHarness, type LedgerHarness } from '@meridian/ledger/testing/harness';
import { main } from '../scripts/verify-ledger.js';

let dir: string | undefined;
let h: LedgerHarness | undefined;
afterEach(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  h = dir = undefined;
});

const capture = () => {
  const lines: string[] = [];
  return { lines, out: { log: (l: string) => lines.push(l), error: (l: string) => lines.push(l) } };
};

describe('scripts/verify-ledger.ts', () => {
  it('intact, then the first broken link after tampering; 2 without a database', async () => {
    dir = await mkdtemp(join(tmpdir(), 'verify-ledger-'));
    h = await startLedgerHarness({ store: createSqliteServiceStore(join(dir, 'ledger.sqlite')) });
    const investor = await h.user();
    await h.fund(investor, '100');
    await h.fund(investor, '25.50');
    await h.settle();

    const ok = capture();
    expect(await main(['--data', dir], ok.out)).toBe(0);
    expect(ok.lines).toEqual([
      'Ledger intact: 1 users, 2 transactions checked, every hash chain and balance recomputed from genesis.',
    ]);

    const [doc] = await h.store.find<{ transactionId: string; memo: string }>('transactions', {
      where: { userId: investor.userId },
      orderBy: { field: 'position', direction: 'desc' },
      limit: 1,
    });
    await h.store.transaction((tx) => tx.put('transactions', doc.transactionId, { ...doc, memo: 'edited' }));
    const bad = capture();
    expect(await main(['--data', dir], bad.out)).toBe(1);
    expect(bad.lines).toEqual([
      'Ledger NOT intact (1 users, 2 transactions checked). First broken link:',
      `  user ${investor.userId}, link #2, transaction ${doc.transactionId}`,
      '  the transactions read model has another memo than the event',
    ]);

    const none = capture();
    expect(await main(['--data', join(dir, 'nothing-here')], none.out)).toBe(2);
  });
});
