/**
 * Crypto-shredding in the ledger: the user directory keeps the name and email as identity
 * sealed them; DepositRequested carries those sealed copies; the deposit answers open them; once the owner's
 * key is destroyed they read '[deleted]' while the deposit's ids, amounts and the balances stay intact.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { identityAndServiceKeys } from '@meridian/platform/testing/personalDataCache';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { isSealed, SHREDDED } from '@meridian/platform/personalData';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { COLLECTIONS, type UserDoc } from './projections/views.js';
import { ledgerPerTest, startLedgerHarness } from './testing/harness.js';
import { userRegistered } from './testing/ledgerClient.js';

const h = ledgerPerTest();
const NAME = 'Lena Shredded-Depositor';
const EMAIL = 'lena.shredded@example.com';

describe('ledger personal data', () => {
  it('keeps the directory sealed, answers deposits opened, and reads [deleted] after the key is shredded', async () => {
    // identity's UserRegistered carries the name and email sealed with the user's key
    const investor = await h.user({ register: false });
    const { userId } = investor;
    await h.publishIdentity(
      'UserRegistered',
      userRegistered(userId, {
        name: await h.personalData.seal(userId, NAME),
        email: await h.personalData.seal(userId, EMAIL),
      }),
    );
    await h.settle();

    const created = await h.requestDeposit(investor, '75');
    expect(created).toMatchObject({
      userName: NAME,
      userEmail: EMAIL,
      amountCents: 7_500,
      status: 'Pending',
    });
    const pending = await h.call('listPendingDeposits', h.asAdmin());
    expect(pending.deposits.find((d) => d.depositId === created.depositId)).toMatchObject({
      userName: NAME,
      userEmail: EMAIL,
    });

    // stored and published sealed
    await h.settle();
    const doc = (await h.store.get<UserDoc>(COLLECTIONS.users, userId))!;
    expect(isSealed(doc.name) && isSealed(doc.email)).toBe(true);
    const published: StoredEvent[] = [];
    const watcher = await h.bus.subscribe({
      topic: topicOf('ledger'),
      group: `test-${randomUUID()}`,
      handler: async (e) => void published.push(e),
    });
    const requested = await waitFor(
      () => published.find((e) => e.type === 'DepositRequested'),
      'DepositRequested read back',
    );
    await watcher.stop();
    const data = requested.data as { userName: string; userEmail: string };
    expect(isSealed(data.userName) && isSealed(data.userEmail)).toBe(true);
    const raw = JSON.stringify([
      await h.store.readAll(0, 100_000),
      await h.store.find(COLLECTIONS.users),
      await h.store.find(COLLECTIONS.deposits),
      published,
    ]);
    for (const plain of [NAME, EMAIL]) expect(raw).not.toContain(plain);

    // the key is destroyed: '[deleted]' for the name and email; the deposit confirms, balances add up
    await h.personalData.shred(userId);
    const confirmed = await h.call('confirmDeposit', {
      ...h.asAdmin(),
      depositId: created.depositId,
      notes: '',
    });
    expect(confirmed).toMatchObject({
      depositId: created.depositId,
      amountCents: 7_500,
      status: 'Confirmed',
      userName: SHREDDED,
      userEmail: SHREDDED,
    });
    expect(await h.balances(userId)).toMatchObject({ depositCents: 7_500 });
    await h.checkInvariants();
  });

  it("identity's UserDeleted drops the key this service had cached", async () => {
    const { identity, service: ledger } = identityAndServiceKeys();
    const l = await startLedgerHarness({ personalData: ledger });
    try {
      const investor = await l.user({ register: false });
      const name = await identity.seal(investor.userId, NAME);
      await l.publishIdentity('UserRegistered', userRegistered(investor.userId, { name, email: '' }));
      await l.settle();
      expect((await l.requestDeposit(investor, '10')).userName).toBe(NAME); // the key is cached now
      await identity.shred(investor.userId);
      expect(await ledger.open(name)).toBe(NAME);
      await l.publishIdentity('UserDeleted', { userId: investor.userId, deletedBy: l.admin.userId });
      await l.settle();
      expect(await ledger.open(name)).toBe(SHREDDED);
      const [deposit] = (await l.call('listPendingDeposits', l.asAdmin())).deposits;
      expect(deposit).toMatchObject({ userId: investor.userId, amountCents: 1_000, userName: SHREDDED });
    } finally {
      await l.stop();
    }
  });
});
