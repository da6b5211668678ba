/**
 * Every read model of the notification service can be dropped and rebuilt from events alone: a realistic
 * run (identity's users registered, promoted, renamed and deleted; a KYC submission mailed to the admins;
 * deposits, investments and a withdrawal mailed to their owners) consumed by the running service, then the
 * directory and the remembered investments are snapshotted, dropped and rebuilt by replaying identity's
 * and investment's topics (kept forever) from the beginning through the read-model half of the live
 * handlers (the email half is an effect, not a read model) — and compared.
 *
 * Not read models, so not rebuilt (see app/collections.ts): the email outbox (`emails`: each email's data,
 * sealed secrets and delivery attempts, the sender's own state), the development mailbox (what the SMTP
 * catcher received) and SendAutomatedEmail's rate-limit counters.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { dropCollections, replayTopic, snapshotCollections } from '@meridian/platform/testing/readModels';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { CONSUMER_GROUP, DIRECTORY, EMAILS, MONEY_INVESTMENTS } from '../app/collections.js';
import { updateDirectory } from '../app/directory.js';
import { rememberInvestment } from '../app/moneyEmails.js';
import type { DirectoryEntry } from '../domain/kycEmails.js';
import { identityEvent, startNotificationHarness, user } from '../testing/harness.js';

/** The id field of each read-model collection (what a drop deletes by). */
const ID_OF = { [DIRECTORY]: 'userId', [MONEY_INVESTMENTS]: 'investmentId' };
const TOPICS = ['identity', 'kyc', 'ledger', 'investment', 'withdrawal'].map(topicOf);

it('drops every read model and rebuilds it equal from the events alone', async () => {
  const h = await startNotificationHarness();
  try {
    /** An event of another service as its relay publishes it (the stream does not matter here). */
    const publish = (source: string, type: string, data: Record<string, unknown>) =>
      h.bus.publish(topicOf(source), [
        { ...identityEvent(type, data), streamId: `${source}-${randomUUID()}` },
      ]);
    const [admin, ada, bob, cy] = [user(), user(), user(), user()];
    const registered = (u: typeof admin, role: string) => identityEvent('UserRegistered', { ...u, role });
    const promoted = { fromRole: 'subscriber', toRole: 'admin', changedBy: admin.userId };
    await h.bus.publish(topicOf('identity'), [
      registered(admin, 'admin'),
      ...[ada, bob, cy].map((u) => registered(u, 'subscriber')),
      identityEvent('RoleChanged', { ...bob, ...promoted }),
      identityEvent('ProfileUpdated', { userId: ada.userId, fields: ['name'], name: 'Ada King' }),
      identityEvent('ProfileUpdated', { userId: bob.userId, fields: ['bio'], name: '', bio: 'hi' }),
      identityEvent('UserDeleted', { userId: cy.userId, deletedBy: admin.userId }),
    ]);
    const consumed = () => TOPICS.every((t) => h.bus.committed(CONSUMER_GROUP, t) === h.bus.size(t));
    await waitFor(consumed, 'the directory known');
    await publish('kyc', 'KycSubmitted', { userId: ada.userId, name: '', email: '', submittedAt: '' });
    await publish('ledger', 'DepositConfirmed', { userId: ada.userId, depositId: 'd1', amountCents: 50_000 });
    const invested = { userId: ada.userId, investmentId: `i-${randomUUID()}`, amountCents: 20_000 };
    const refused = { userId: bob.userId, investmentId: `i-${randomUUID()}`, amountCents: 9_000 };
    await publish('investment', 'InvestmentRequested', { ...invested, planName: 'Gold' });
    await publish('investment', 'InvestmentApproved', { ...invested, maturityAmountCents: 22_000 });
    await publish('investment', 'InvestmentRequested', { ...refused, planName: 'Starter' });
    await publish('investment', 'InvestmentRejected', refused);
    await publish('withdrawal', 'WithdrawalRequested', {
      userId: ada.userId,
      withdrawalId: 'w1',
      amountCents: 500,
    });
    await waitFor(consumed, 'every topic consumed');
    await h.stop();
    const before = await snapshotCollections(h.store, ID_OF);
    const emails = await h.store.count(EMAILS);

    // the run covers what the rebuild must restore (and mailed what the read models looked up)
    const directory = new Map((before[DIRECTORY] as DirectoryEntry[]).map((d) => [d.userId, d]));
    expect([...directory.keys()].sort()).toEqual([admin.userId, ada.userId, bob.userId].sort());
    expect(directory.get(ada.userId)?.name).toBe('Ada King');
    expect(directory.get(bob.userId)).toMatchObject({ role: 'admin', name: 'Ada Lovelace' });
    expect(before[MONEY_INVESTMENTS]).toHaveLength(2);
    expect(emails).toBe(7); // role changed, KYC to both admins, deposit, investment approved and rejected, withdrawal

    await dropCollections(h.store, ID_OF);
    for (const c of Object.keys(ID_OF)) expect(await h.store.count(c)).toBe(0);

    // from the beginning (a fresh group) through the read-model half of the live handlers
    const identity = topicOf('identity');
    const investment = topicOf('investment');
    await replayTopic(h.bus, h.store, identity, h.bus.size(identity), updateDirectory);
    await replayTopic(h.bus, h.store, investment, h.bus.size(investment), rememberInvestment);

    expect(await snapshotCollections(h.store, ID_OF)).toEqual(before);
    expect(await h.store.count(EMAILS)).toBe(emails);
  } finally {
    await h.close();
  }
});
