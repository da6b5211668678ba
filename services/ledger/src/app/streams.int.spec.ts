/**
 * The set-based path of a batch on one user's ledger (handleCommands on LEDGER_STREAM) on streams whose rows are missing
 * or behind: it heals them from the stream and decides on the whole truth.
 */
import { describe, expect, it } from 'vitest';
import { handleCommand, handleCommands } from '@meridian/platform/app/commandHandler';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { type LedgerCommand, type MoneyCommand, factKeysOf, foldLedger } from '../domain/account.js';
import { STATE_COLLECTIONS, LEDGER_STREAM, ledgerStateFor, loadLedger } from './streams.js';

const meta = { correlationId: 'c' };
let n = 0;
const at = { now: new Date('2026-03-01T12:00:00Z') };
type WithoutAttempt<C> = C extends unknown ? Omit<C, 'transactionId' | 'now'> : never;
const command = (c: WithoutAttempt<MoneyCommand>) =>
  ({ ...c, transactionId: `t-${++n}`, ...at }) as MoneyCommand;
const run = (store: ServiceStore, c: LedgerCommand) =>
  store.transaction((tx) => handleCommand(tx, LEDGER_STREAM, c.userId, c, meta));

/** u1 funded 1,000.00 with two investments of 100.00 held and captured. */
async function funded(store: ServiceStore): Promise<void> {
  await run(
    store,
    command({
      type: 'CreditDeposit',
      userId: 'u1',
      depositId: 'd1',
      amountCents: 100_000,
      idempotencyKey: 'd1',
    }),
  );
  for (const id of ['i1', 'i2']) {
    await run(
      store,
      command({
        type: 'PlaceHold',
        userId: 'u1',
        holdId: id,
        purpose: 'investment',
        amountCents: 10_000,
        idempotencyKey: id,
      }),
    );
    await run(
      store,
      command({ type: 'CaptureHold', userId: 'u1', holdId: id, idempotencyKey: `capture:${id}` }),
    );
  }
}

const settle = (investmentId: string) => {
  const c = command({
    type: 'SettleMaturity',
    userId: 'u1',
    investmentId,
    principalCents: 10_000,
    maturityAmountCents: 11_000,
    idempotencyKey: `maturity:${investmentId}`,
  });
  return { reads: [c], commands: () => [c] };
};

/** The state the rows give, against the stream folded whole. */
async function rowsAgreeWithStream(store: ServiceStore): Promise<void> {
  const keys = ['i1', 'i2'].flatMap((id) => factKeysOf(settle(id).commands()[0]));
  const fromRows = await ledgerStateFor(store, 'u1', keys);
  const { state, version } = await loadLedger(store, 'u1');
  expect(fromRows.balances).toEqual(state.balances);
  expect(fromRows.chain).toEqual(state.chain);
  expect(fromRows.settledInvestments).toEqual(state.settledInvestments);
  expect((await store.get<{ version: number }>(STATE_COLLECTIONS.state, 'u1'))?.version).toBe(version);
}

describe('a batch on a stream whose rows are missing or behind', () => {
  it('a stream without rows: written from the fold first, then the batch settles once', async () => {
    const store = createSqliteServiceStore(':memory:');
    await funded(store);
    await store.transaction(async (tx) => {
      await tx.delete(STATE_COLLECTIONS.state, 'u1');
    });
    const { outcomes } = await store.transaction((tx) =>
      handleCommands(tx, LEDGER_STREAM, 'u1', [settle('i1'), settle('i2'), settle('i1')], meta),
    );
    expect(outcomes).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    const { state } = await loadLedger(store, 'u1');
    expect(state.balances).toMatchObject({ deposit: 80_000, invested: 0, profit: 22_000 });
    await rowsAgreeWithStream(store);
    await store.close();
  });

  it('a row behind its stream: the append is refused, the rows healed from the fold, the batch decided again on them', async () => {
    const store = createSqliteServiceStore(':memory:');
    await funded(store);
    // the row as it was before i2 settled, then i2 settled: the row is one posting behind
    const stale = await store.get<object>(STATE_COLLECTIONS.state, 'u1');
    const i2 = settle('i2');
    await store.transaction((tx) => handleCommands(tx, LEDGER_STREAM, 'u1', [i2], meta));
    await store.transaction(async (tx) => {
      await tx.put(STATE_COLLECTIONS.state, 'u1', stale!);
    });
    // i2 again (its settlement is in the stream, not in the stale row) and i1
    const { outcomes } = await store.transaction((tx) =>
      handleCommands(tx, LEDGER_STREAM, 'u1', [settle('i2'), settle('i1')], meta),
    );
    expect(outcomes).toEqual([{ ok: true }, { ok: true }]);
    const { state, version } = await loadLedger(store, 'u1');
    const events = (await store.readStream('ledger-u1')).events;
    const maturities = events.filter(
      (e) => e.type === 'TransactionPosted' && (e.data as { reason: string }).reason === 'investment_matured',
    );
    expect(maturities).toHaveLength(2); // i2 once, i1 once
    expect(state.balances).toMatchObject({ invested: 0, profit: 22_000 });
    // every posting linked once: the deposit, two holds, two captures, two maturities
    expect(foldLedger([], state).chain.seq).toBe(7);
    expect(version).toBe(events.length);
    await rowsAgreeWithStream(store);
    await store.close();
  });
});
