import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { HoldPurpose } from '@meridian/proto/meridian/ledger/v1/ledger';
import { toAccountStreamId } from './domain/account.js';
import { MATURITY_CHUNK } from './app/money.js';
import { verifyLedgerStore } from './app/statements.js';
import { ledgerPerTest } from './testing/harness.js';
import { seedCapturedHolds } from './testing/seedHolds.js';

const INVEST = HoldPurpose.HOLD_PURPOSE_INVESTMENT;

describe('SettleMaturities: balances announced once per user per batch', () => {
  const h = ledgerPerTest();
  // after each test its hash chain holds too (ledgerPerTest checks the invariants)
  afterEach(async () => {
    expect((await verifyLedgerStore(h.store)).intact).toBe(true);
  });
  /** Two users with $1,000 each on their deposit balance. */
  const fundedPair = async () => {
    const a = await h.user();
    const b = await h.user();
    await h.fund(a, '1000');
    await h.fund(b, '1000');
    return { a, b };
  };

  it('one BalancesChanged per user with the balances after their last posting; the chain and rows hold', async () => {
    const { a, b } = await fundedPair();
    const holds = async (userId: string, n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const id = `inv-${randomUUID()}`;
        await h.call('placeHold', { userId, holdId: id, purpose: INVEST, amountCents: 10_000 });
        ids.push(id);
      }
      return ids;
    };
    const aIds = await holds(a.userId, 3); // captured by the batch
    const bIds = await holds(b.userId, 2);
    for (const holdId of bIds) await h.call('captureHold', { userId: b.userId, holdId });
    const before = {
      a: (await h.store.readStream(toAccountStreamId(a.userId))).version,
      b: (await h.store.readStream(toAccountStreamId(b.userId))).version,
    };
    const item = (userId: string, investmentId: string) => ({
      userId,
      investmentId,
      principalCents: 10_000,
      maturityAmountCents: 11_000,
      idempotencyKey: '',
    });
    const { results } = await h.call('settleMaturities', {
      items: [...aIds.map((id) => item(a.userId, id)), ...bIds.map((id) => item(b.userId, id))],
    });
    expect(results.every((r) => r.settled)).toBe(true);

    for (const [who, from, postings] of [
      [a.userId, before.a, 6], // 3 captures and 3 maturities
      [b.userId, before.b, 2],
    ] as const) {
      const added = (await h.store.readStream(toAccountStreamId(who))).events.filter((e) => e.version > from);
      const types = added.map((e) => e.type);
      expect(types.filter((t) => t === 'TransactionPosted')).toHaveLength(postings);
      expect(types.filter((t) => t === 'BalancesChanged')).toHaveLength(1);
      // the announcement comes last, after the last posting, with the balances the view shows
      expect(types[types.length - 1]).toBe('BalancesChanged');
      const lastPosted = added.filter((e) => e.type === 'TransactionPosted').at(-1)!;
      const announced = added.at(-1)!.data as Record<string, unknown>;
      expect(announced.transactionId).toBe((lastPosted.data as { transactionId: string }).transactionId);
      const shown = await h.balances(who);
      expect(announced).toMatchObject({
        depositCents: Number(shown.depositCents),
        investedCents: Number(shown.investedCents),
        profitCents: Number(shown.profitCents),
      });
    }
    const shownA = await h.balances(a.userId);
    expect(Number(shownA.profitCents)).toBe(33_000);
    expect(Number(shownA.investedCents)).toBe(0);

    // the state row followed the stream: the next single command posts without healing, and the batch
    // again settles nothing twice
    const again = await h.call('settleMaturities', { items: aIds.map((id) => item(a.userId, id)) });
    expect(again.results.every((r) => r.settled)).toBe(true);
    const [extra] = await holds(a.userId, 1);
    await h.call('captureHold', { userId: a.userId, holdId: extra });
    expect(Number((await h.balances(a.userId)).profitCents)).toBe(33_000);
  });

  it('decides each item on what the items before it left: a refusal undoes that item alone, a repeated key settles once, results keep the order asked', async () => {
    const { a, b } = await fundedPair();
    const captured = async (userId: string) => {
      const id = `inv-${randomUUID()}`;
      await h.call('placeHold', { userId, holdId: id, purpose: INVEST, amountCents: 10_000 });
      await h.call('captureHold', { userId, holdId: id });
      return id;
    };
    const [a1, a2, b1] = [await captured(a.userId), await captured(a.userId), await captured(b.userId)];
    const from = (await h.store.readStream(toAccountStreamId(a.userId))).version;
    const item = (userId: string, investmentId: string, maturityAmountCents = 11_000) => ({
      userId,
      investmentId,
      principalCents: 10_000,
      maturityAmountCents,
      idempotencyKey: '',
    });
    const { results } = await h.call('settleMaturities', {
      items: [
        item(a.userId, a1),
        item(b.userId, b1),
        item(a.userId, a2, 9_000), // refused: below the principal
        item(a.userId, a1), // the same key again: nothing more
        item(a.userId, a2), // the refused one, now right: decided as if the refusal had not been
        item('', a1), // no user
      ],
    });
    expect(results.map((r) => [r.investmentId, r.settled])).toEqual([
      [a1, true],
      [b1, true],
      [a2, false],
      [a1, true],
      [a2, true],
      [a1, false],
    ]);
    expect(results[2].errorMessage).toBe('The maturity amount cannot be less than the principal');
    const added = (await h.store.readStream(toAccountStreamId(a.userId))).events.filter(
      (e) => e.version > from,
    );
    const settled = added
      .filter((e) => e.type === 'TransactionPosted')
      .map((e) => (e.data as { references: { investmentId: string } }).references.investmentId);
    expect(settled).toEqual([a1, a2]);
    expect(Number((await h.balances(a.userId)).profitCents)).toBe(22_000);
    expect(Number((await h.balances(a.userId)).investedCents)).toBe(0);
    expect(Number((await h.balances(b.userId)).profitCents)).toBe(11_000);
  });

  it('two batch calls at once run one after the other: every chunk of the first commits before any of the second', async () => {
    const a = await h.user();
    const b = await h.user();
    // each call two chunks long (MATURITY_CHUNK items to a transaction), the holds already captured
    const ids = (n: number) => Array.from({ length: n }, () => `inv-${randomUUID()}`);
    const first = ids(MATURITY_CHUNK + 25);
    const second = ids(MATURITY_CHUNK + 25);
    await seedCapturedHolds(
      h.store,
      [
        ...first.map((holdId) => ({ userId: a.userId, holdId })),
        ...second.map((holdId) => ({ userId: b.userId, holdId })),
      ],
      100,
    );
    const from = await h.store.lastPosition();
    const items = (userId: string, investmentIds: string[]) =>
      investmentIds.map((investmentId) => ({
        userId,
        investmentId,
        principalCents: 100,
        maturityAmountCents: 110,
        idempotencyKey: '',
      }));
    const [one, two] = await Promise.all([
      h.call('settleMaturities', { items: items(a.userId, first) }),
      h.call('settleMaturities', { items: items(b.userId, second) }),
    ]);
    expect(one.results.every((r) => r.settled) && two.results.every((r) => r.settled)).toBe(true);

    // where each call's maturity postings landed in the log
    const at = { [a.userId]: [] as number[], [b.userId]: [] as number[] };
    for (const e of await h.store.readAll(from, 100_000))
      if (
        e.type === 'TransactionPosted' &&
        /^maturity:/.test((e.data as { idempotencyKey: string }).idempotencyKey)
      )
        at[e.streamId === toAccountStreamId(a.userId) ? a.userId : b.userId]!.push(e.position);
    expect(at[a.userId]).toHaveLength(first.length);
    expect(at[b.userId]).toHaveLength(second.length);
    expect(Math.max(...at[a.userId]!)).toBeLessThan(Math.min(...at[b.userId]!));
    expect(Number((await h.balances(b.userId)).profitCents)).toBe(second.length * 110);
  });
});
