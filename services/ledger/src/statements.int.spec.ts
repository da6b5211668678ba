import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import {
  AdjustmentOperation,
  BalanceAccount,
  HoldPurpose,
  type Statement as ProtoStatement,
} from '@meridian/proto/meridian/ledger/v1/ledger';
import { GENESIS_HASH, entryHash, verifyStatement } from 'meridian-verify';
import {
  type LedgerEvent,
  accountDecider,
  coreOf,
  initialState,
  linkOf,
  GENESIS,
  toAccountStreamId,
} from './domain/account.js';
import { project } from './app/project.js';
import { STATE_COLLECTIONS } from './app/streams.js';
import { verifyLedgerStore } from './app/statements.js';
import { COLLECTIONS, type TransactionDoc } from './projections/views.js';
import { type LedgerHarness, type Principal, ledgerPerTest, startLedgerHarness } from './testing/harness.js';

const INVEST = HoldPurpose.HOLD_PURPOSE_INVESTMENT;
const WITHDRAW = HoldPurpose.HOLD_PURPOSE_WITHDRAWAL;

/** The statement JSON (the file the investor downloads) from the RPC's answer. */
const asJson = (s: ProtoStatement) => JSON.parse(JSON.stringify(s)) as ProtoStatement;

/** Every reason of posting on `investor`'s ledger (and a referral bonus on `referrer`'s). */
async function postEveryReason(h: LedgerHarness, investor: Principal) {
  const { userId } = investor;
  await h.fund(investor, '1000'); // deposit_confirmed (+ the referrer's referral_bonus)
  const inv1 = `inv-${randomUUID()}`;
  await h.call('placeHold', { userId, holdId: inv1, purpose: INVEST, amountCents: 60_000 }); // hold_placed
  await h.call('captureHold', { userId, holdId: inv1 }); // hold_captured
  await h.call('settleMaturities', {
    items: [
      { userId, investmentId: inv1, principalCents: 60_000, maturityAmountCents: 67_200, idempotencyKey: '' },
    ],
  }); // investment_matured, in a maturity batch
  const inv2 = `inv-${randomUUID()}`;
  await h.call('placeHold', { userId, holdId: inv2, purpose: INVEST, amountCents: 10_000 });
  await h.call('releaseHold', { userId, holdId: inv2 }); // hold_released
  const w = `wd-${randomUUID()}`;
  await h.call('placeHold', { userId, holdId: w, purpose: WITHDRAW, amountCents: 5_000 });
  await h.call('captureHold', { userId, holdId: w });
  await h.call('adjustBalance', {
    ...h.asAdmin(),
    userId,
    account: BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
    operation: AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
    amount: '12.34',
    reason: 'Goodwill, "quoted" =1+1',
  }); // admin_adjustment
}

const wide = { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' };

describe('the hash chain and statements', () => {
  const h = ledgerPerTest();

  it('postings of every reason make one contiguous chain that the verifier accepts', async () => {
    const referrer = await h.user();
    const investor = await h.user({ referredBy: referrer.userId });
    await postEveryReason(h, investor);
    await h.settle();

    const s = asJson(
      await h.call('getStatement', { caller: investor.caller, callerRole: 'subscriber', ...wide }),
    );
    expect(s.entries.map((e) => e.reason)).toEqual([
      'deposit_confirmed',
      'hold_placed',
      'hold_captured',
      'investment_matured',
      'hold_placed',
      'hold_released',
      'hold_placed',
      'hold_captured',
      'admin_adjustment',
    ]);
    expect(s.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s.opening).toEqual({ seq: 0, hash: GENESIS_HASH });
    let prev = GENESIS_HASH;
    for (const e of s.entries) {
      expect(e.prevHash).toBe(prev);
      expect(await entryHash(e)).toBe(e.hash); // WebCrypto over the ledger's node:crypto hash: the same
      prev = e.hash;
    }
    expect(s.head).toEqual({ seq: 9, hash: prev });
    const closing = Object.fromEntries(s.accounts.map((a) => [a.kind, a.closingCents]));
    expect(closing).toEqual({
      deposit: 100_000 - 60_000 + 1_234,
      invested: 0,
      profit: 67_200 - 5_000,
      withdrawal_hold: 0,
      investment_hold: 0,
    });
    expect(await verifyStatement(s)).toMatchObject({ intact: true, entries: 9, head: prev });

    // the referrer's chain holds the bonus; the history carries the links too
    const r = asJson(
      await h.call('getStatement', { caller: referrer.caller, callerRole: 'subscriber', ...wide }),
    );
    expect(r.entries.map((e) => [e.seq, e.reason])).toEqual([[1, 'referral_bonus']]);
    expect((await verifyStatement(r)).intact).toBe(true);
    const history = await h.call('listTransactions', { caller: investor.caller, callerRole: 'subscriber' });
    expect(history.transactions[0]).toMatchObject({ seq: 9, hash: prev });

    const verified = await h.call('verifyLedger', h.asAdmin());
    expect(verified).toMatchObject({ intact: true, usersChecked: 2, entriesChecked: 10 });
    expect(verified.firstBroken).toBeUndefined();
  });

  it('a period has the opening and closing balances of its boundaries and links to the entry before it', async () => {
    const investor = await h.user();
    await postEveryReason(h, investor);
    const all = asJson(await h.call('getStatement', { ...h.asAdmin(), userId: investor.userId, ...wide }));
    const k = 4; // from the 5th posting's instant on
    const from = all.entries[k].postedAt;
    const part = asJson(
      await h.call('getStatement', { ...h.asAdmin(), userId: investor.userId, from, to: wide.to }),
    );
    const before = all.entries.filter((e) => e.postedAt < from);
    expect(part.entries).toEqual(all.entries.slice(before.length));
    expect(part.opening).toEqual(
      before.length ? { seq: before.at(-1)!.seq, hash: before.at(-1)!.hash } : { seq: 0, hash: GENESIS_HASH },
    );
    for (const account of part.accounts) {
      const sumOf = (list: typeof all.entries) =>
        list
          .flatMap((e) => e.postings)
          .filter((p) => p.accountId === account.accountId)
          .reduce((a, p) => a + p.amountCents, 0);
      expect(account.openingCents).toBe(sumOf(before));
      expect(account.closingCents).toBe(sumOf(all.entries));
    }
    expect(part.head).toEqual(all.head);
    expect((await verifyStatement(part)).intact).toBe(true);

    // a period before everything: no entries, head = opening = genesis, nothing moved
    const empty = asJson(
      await h.call('getStatement', {
        ...h.asAdmin(),
        userId: investor.userId,
        from: '2001-01-01',
        to: '2001-01-31',
      }),
    );
    expect(empty).toMatchObject({
      entries: [],
      opening: { seq: 0, hash: GENESIS_HASH },
      head: { seq: 0, hash: GENESIS_HASH },
      from: '2001-01-01T00:00:00.000Z',
      to: '2001-01-31T23:59:59.999Z',
    });
    expect(empty.accounts.every((a) => a.openingCents === 0 && a.closingCents === 0)).toBe(true);
    expect((await verifyStatement(empty)).intact).toBe(true);
  });

  it('an investor gets only their own statement; bad periods are refused', async () => {
    const investor = await h.user();
    const other = await h.user();
    await h.fund(other, '50');
    await expectStatus(
      h.call('getStatement', { caller: investor.caller, callerRole: 'subscriber', userId: other.userId }),
      grpc.status.PERMISSION_DENIED,
      'Not authorized',
    );
    await expectStatus(
      h.call('verifyLedger', { caller: investor.caller, callerRole: 'subscriber' }),
      grpc.status.PERMISSION_DENIED,
      'Not authorized, admin only',
    );
    const own = await h.call('getStatement', { caller: investor.caller, callerRole: 'subscriber' });
    expect(own).toMatchObject({ userId: investor.userId, entries: [], format: 'meridian-statement/1' });
    for (const [from, to, message] of [
      ['yesterday', '', 'from must be an ISO-8601 date or time'],
      ['2026-01-01', '2026-13-01', 'to must be an ISO-8601 date or time'],
      ['2026-02-01', '2026-01-01', 'from must not be after to'],
    ])
      await expectStatus(
        h.call('getStatement', { caller: investor.caller, callerRole: 'subscriber', from, to }),
        grpc.status.INVALID_ARGUMENT,
        message,
      );
  });

  it('transactions stored before the chain enter it in stream order, computed from genesis', async () => {
    const investor = await h.user();
    const { userId } = investor;
    // what the ledger wrote before the chain: a posting without a link, a state row without a chain head,
    // a transactions document without a link
    const legacy = accountDecider.decide(
      {
        type: 'CreditDeposit',
        userId,
        depositId: `d-${randomUUID()}`,
        amountCents: 2_500,
        idempotencyKey: `deposit:legacy-${randomUUID()}`,
        transactionId: `tx-${randomUUID()}`,
        now: new Date('2026-01-05T10:00:00.000Z'),
      },
      initialState(),
    );
    expect((legacy[0].data as { hash?: string }).hash).toBeUndefined();
    await h.store.transaction(async (tx) => {
      const { events } = await tx.appendToStream<LedgerEvent>(toAccountStreamId(userId), 0, legacy, {
        correlationId: randomUUID(),
      });
      await project(tx, events);
      const txId = (legacy[0].data as { transactionId: string }).transactionId;
      const doc = (await tx.get<TransactionDoc>(COLLECTIONS.transactions, txId))!;
      const { seq: _s, prevHash: _p, hash: _h, ...unlinked } = doc;
      await tx.put(COLLECTIONS.transactions, txId, unlinked);
      const { chain: _c, ...oldCore } = coreOf(legacy.reduce(accountDecider.evolve, initialState()));
      await tx.put(STATE_COLLECTIONS.state, userId, { userId, version: legacy.length, core: oldCore });
    });

    await h.fund(investor, '10'); // a new posting after the old one
    const s = asJson(await h.call('getStatement', { ...h.asAdmin(), userId, ...wide }));
    const first = linkOf(
      {
        ...(legacy[0].data as Parameters<typeof linkOf>[0]),
      },
      GENESIS,
    );
    expect(s.entries.map((e) => [e.seq, e.prevHash, e.hash])).toEqual([
      [1, GENESIS_HASH, first.hash],
      [2, first.hash, s.entries[1].hash],
    ]);
    expect(await verifyStatement(s)).toMatchObject({ intact: true, entries: 2 });
    // the old document got its link when first needed
    const doc = await h.store.get<TransactionDoc>(COLLECTIONS.transactions, s.entries[0].transactionId);
    expect(doc).toMatchObject({ seq: 1, hash: first.hash });
    expect(await h.call('verifyLedger', h.asAdmin())).toMatchObject({ intact: true });
  });
});

describe('VerifyLedger finds tampering', () => {
  let dir: string | undefined;
  let h: LedgerHarness | undefined;
  afterEach(async () => {
    await h?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    h = undefined;
    dir = undefined;
  });

  it('passes on an honest ledger, then names the first broken link after a stored transaction is altered', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-verify-'));
    const storePath = join(dir, 'ledger.sqlite');
    h = await startLedgerHarness({ store: createSqliteServiceStore(storePath) });
    const a = await h.user();
    const b = await h.user();
    await postEveryReason(h, a);
    await postEveryReason(h, b);
    await h.settle();
    const honest = await h.call('verifyLedger', h.asAdmin());
    expect(honest).toMatchObject({ intact: true, usersChecked: 2, entriesChecked: 18 });

    // one cent more on b's 3rd transaction, written to the store directly (the event's own row)
    const sb = asJson(await h.call('getStatement', { ...h.asAdmin(), userId: b.userId, ...wide }));
    const target = sb.entries[2];
    const raw = new Database(storePath);
    try {
      const row = raw
        .prepare<[string], { position: number; data: string }>(
          "SELECT position, data FROM events WHERE type = 'TransactionPosted' AND json_extract(data, '$.transactionId') = ?",
        )
        .get(target.transactionId)!;
      const data = JSON.parse(row.data) as { entries: Array<{ amountCents: number }> };
      data.entries[1].amountCents += 1;
      raw.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(data), row.position);
    } finally {
      raw.close();
    }
    const tampered = await verifyLedgerStore(h.store);
    expect(tampered.intact).toBe(false);
    expect(tampered.firstBroken).toEqual({
      userId: b.userId,
      seq: 3,
      transactionId: target.transactionId,
      problem: 'the stored hash does not match the transaction (its contents were changed)',
    });
    const overGrpc = await h.call('verifyLedger', h.asAdmin());
    expect(overGrpc).toMatchObject({ intact: false, firstBroken: { userId: b.userId, seq: 3 } });
  });

  it('a read model that no longer matches its event is reported', async () => {
    h = await startLedgerHarness();
    const a = await h.user();
    await postEveryReason(h, a);
    const s = asJson(await h.call('getStatement', { ...h.asAdmin(), userId: a.userId, ...wide }));
    const target = s.entries[1];
    await h.store.transaction(async (tx) => {
      const doc = (await tx.get<TransactionDoc>(COLLECTIONS.transactions, target.transactionId))!;
      const entries = doc.entries.map((e, i) => (i === 0 ? { ...e, amountCents: e.amountCents - 1 } : e));
      await tx.put(COLLECTIONS.transactions, target.transactionId, { ...doc, entries });
    });
    const out = await verifyLedgerStore(h.store);
    expect(out.firstBroken).toMatchObject({ userId: a.userId, seq: 2, transactionId: target.transactionId });
    expect(out.firstBroken?.problem).toMatch(
      /^the transactions read model has -600\.01 on user:.*:deposit where the event has -600\.00$/,
    );
    // and the statement built from that read model no longer verifies
    const altered = asJson(await h.call('getStatement', { ...h.asAdmin(), userId: a.userId, ...wide }));
    const verdict = await verifyStatement(altered);
    expect(verdict.intact).toBe(false);
    expect(verdict.problems[0]).toBe(
      `Entry 2 (tx ${target.transactionId}): hash does not match its contents`,
    );
  });
});
