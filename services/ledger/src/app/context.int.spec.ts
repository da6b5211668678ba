import { describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { ConcurrencyError } from '@meridian/platform/eventSourcing/errors';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { AdjustableAccount } from '../domain/account.js';
import { COLLECTIONS } from '../projections/views.js';
import { ledgerInvariantProblems } from '../testing/invariants.js';
import { inTransaction, type LedgerContext } from './context.js';
import { placeHold } from './money.js';
import { handleCommand } from '@meridian/platform/app/commandHandler';
import { LEDGER_STREAM } from './streams.js';

/** A store on which another writer appends to the stream first, `times` times. */
function racedStore(store: ServiceStore, times: number): ServiceStore & { attempts: number } {
  const raced = Object.create(store) as ServiceStore & { attempts: number };
  raced.attempts = 0;
  raced.transaction = <T>(fn: Parameters<ServiceStore['transaction']>[0]) =>
    store.transaction(async (tx) => {
      raced.attempts++;
      if (raced.attempts <= times) {
        // the competing writer wins the append of this attempt
        throw new ConcurrencyError('ledger-u1', 1, 2);
      }
      return fn(tx);
    }) as Promise<T>;
  return raced;
}

/** An admin adjustment (add) on user u1's ledger, straight through the command path. */
const addToUser1 = (
  store: ServiceStore,
  account: AdjustableAccount,
  amountCents: number,
  idempotencyKey: string,
  transactionId: string,
) =>
  store.transaction((tx) =>
    handleCommand(
      tx,
      LEDGER_STREAM,
      'u1',
      {
        type: 'AdjustBalance',
        userId: 'u1',
        adminId: 'a',
        actorRole: 'admin',
        account,
        operation: 'add',
        amountCents,
        idempotencyKey,
        transactionId,
        now: new Date(),
      },
      { correlationId: 'c' },
    ),
  );

const ctxOf = (store: ServiceStore, maxAttempts = 5): LedgerContext => {
  let n = 0;
  return { store, clock: () => new Date('2026-03-01T12:00:00Z'), newId: () => `id-${++n}`, maxAttempts };
};

describe('inTransaction', () => {
  it('re-runs read -> decide -> append after a ConcurrencyError, then succeeds', async () => {
    const base = createSqliteServiceStore(':memory:');
    await addToUser1(base, 'deposit', 1000, 'k0', 't0');
    const store = racedStore(base, 2);
    const result = await placeHold(ctxOf(store), {
      userId: 'u1',
      holdId: 'h1',
      purpose: 'investment',
      amountCents: 400,
    });
    expect(store.attempts).toBe(3);
    expect(result.balances).toMatchObject({ depositCents: 600, investmentHoldCents: 400 });
    expect(await ledgerInvariantProblems(base)).toEqual([]);
    await base.close();
  });

  it('gives up after maxAttempts with the ConcurrencyError', async () => {
    const base = createSqliteServiceStore(':memory:');
    const store = racedStore(base, 10);
    await expect(inTransaction(ctxOf(store, 3), async () => 'never')).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    expect(store.attempts).toBe(3);
    await base.close();
  });
});

describe('ledgerInvariantProblems', () => {
  it('notices a shown balance that differs from the entries', async () => {
    const store = createSqliteServiceStore(':memory:');
    await addToUser1(store, 'profit', 700, 'k', 't');
    expect(await ledgerInvariantProblems(store)).toEqual([]);
    await store.transaction(async (tx) => {
      const doc = await tx.get<Record<string, unknown>>(COLLECTIONS.balances, 'u1');
      await tx.put(COLLECTIONS.balances, 'u1', { ...doc, profitCents: 701 });
    });
    expect(await ledgerInvariantProblems(store)).toEqual(['user u1 profit shows 701, entries sum to 700']);
    await store.close();
  });
});
