/**
 * Every read model of identity can be dropped and rebuilt from events alone: a realistic run through
 * the gRPC surface (registrations with referrals, a verification, profile edits, a role change, a
 * deletion, an impersonation, a password reset) interleaved with the kyc and ledger facts the user view
 * shows, then every read-model collection is snapshotted, dropped and rebuilt — from identity's own log
 * through projectInline (what the command handler runs) and projectSignIns (what a sign-in runs), then
 * from the kyc and ledger topics replayed from the beginning through the handler the live consumer
 * uses — and compared.
 *
 * Not read models, so not rebuilt: `credentials` (password hashes, which never enter an event),
 * `trusted-devices` (the browsers a user confirmed with a login code: sign-in state, no event),
 * `login-codes` and `tokens` (state-stored deciders whose state is their own record). Sessions and rate
 * limits live in the key-value store.
 */
import { expect, it } from 'vitest';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import { dropCollections, replayTopic, snapshotCollections } from '@meridian/platform/testing/readModels';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { applyExternalFact } from '../app/externalFacts.js';
import { applyAuditEvent, AUDIT_GROUP, AUDITED_TOPICS } from '../app/audit.js';
import { AUDIT_ENTRIES, projectSignIns, SECURITY_EVENTS } from './audit.js';
import type { UserEvent } from '../domain/user.js';
import { startHarness } from '../testing/harness.js';
import { createNodeCrypto } from '../adapters/crypto.node.js';
import { SEARCH_TOKENS, searchTokenId, type SearchTokenDoc, type SearchTokenizer } from './searchTokens.js';
import { EXTERNAL_TOPICS, KYC_TOPIC, LEDGER_TOPIC } from './externalFacts.js';
import {
  EMAIL_INDEX,
  projectInline,
  REFERRAL_INDEX,
  REFERRALS,
  USER_STATS,
  USERS,
  type ReferralView,
  type UserView,
} from './userView.js';

/** The id field of each read-model collection (what a drop deletes by). */
const ID_OF = {
  [USERS]: 'id',
  [EMAIL_INDEX]: 'email',
  [REFERRAL_INDEX]: 'referralCode',
  [REFERRALS]: 'id',
  // the user statistics' counters (one document)
  [USER_STATS]: 'id',
  // the audit trail and the security events (projections/audit.ts), from every service's topic
  [AUDIT_ENTRIES]: 'id',
  [SECURITY_EVENTS]: 'id',
};
const MINUTE = 60_000;

it('drops every read model and rebuilds it equal from the events alone', async () => {
  const h = await startHarness();
  try {
    /** A kyc or ledger event as that service's relay publishes it, at the harness's current time. */
    const publish = async (topic: string, type: string, userId: string, data: object, version = 1) => {
      const streamId = `${topic === KYC_TOPIC ? 'kyc' : 'ledger'}-${userId}`;
      const event = busEvent(streamId, version, { userId, ...data }, type);
      await h.bus.publish(topic, [{ ...event, occurredAt: h.now().toISOString() }]);
    };
    const consumed = () =>
      (EXTERNAL_TOPICS.every((t) => h.bus.committed('identity', t) === h.bus.size(t)) &&
        AUDITED_TOPICS.every((t) => h.bus.committed(AUDIT_GROUP, t) === h.bus.size(t))) ||
      null;
    const admin = await h.adminCaller();
    const ann = await h.register({ name: 'Ann', email: 'ann@example.com' });
    const annCaller = await h.callerOf(ann.sessionToken);
    const annId = ann.user!.id;
    h.advance(MINUTE);
    const bob = await h.register({ name: 'Bob', referralCode: ann.user!.referralCode });
    const cy = await h.register({ name: 'Cy' });
    const dee = await h.register({ name: 'Dee', referralCode: ann.user!.referralCode });

    // Ann: verified, then her own edits interleaved with kyc and ledger facts (a late, older balance too)
    const verification = await h.latestSecret('EmailVerificationRequested', ann.email);
    await h.call('verifyUser', { verificationToken: verification });
    h.advance(MINUTE);
    await publish(KYC_TOPIC, 'KycSubmitted', annId, { frontDoc: '/f', backDoc: '/b', submissionId: 's1' });
    await waitFor(consumed, 'KycSubmitted consumed');
    h.advance(MINUTE);
    await h.call('updateUser', { caller: annCaller, bio: 'Investor', photo: 'https://example.com/ann.png' });
    h.advance(MINUTE);
    await publish(KYC_TOPIC, 'KycApproved', annId, { submissionId: 's1', approvedBy: admin.userId });
    await publish(LEDGER_TOPIC, 'BalancesChanged', annId, { depositCents: 10_000, investedCents: 2_500 }, 3);
    await publish(LEDGER_TOPIC, 'BalancesChanged', annId, { depositCents: 5_000, investedCents: 0 }, 2);
    await waitFor(consumed, 'kyc and ledger facts consumed');
    h.advance(MINUTE);
    await h.call('updateUser', { caller: annCaller, phone: '+44 20 7946 0000' });
    const annUpdatedAt = h.now().toISOString();

    // Bob renames himself (his referral follows); Cy becomes an author and resets her password;
    // Dee is deleted (a kyc fact about her afterwards changes nothing); Ann is impersonated
    const bobCaller = await h.callerOf(bob.sessionToken);
    await h.call('updateUser', { caller: bobCaller, name: 'Bobby', photo: 'https://example.com/bob.png' });
    await h.call('upgradeUser', { caller: admin, userId: cy.user!.id, role: 'author' });
    await h.call('forgotPassword', { email: cy.email });
    const reset = await h.latestSecret('PasswordResetRequested', cy.email);
    await h.call('resetPassword', { resetToken: reset, password: 'Fresh-pass-9' });
    await h.call('deleteUser', { caller: admin, userId: dee.user!.id });
    await publish(KYC_TOPIC, 'KycSubmitted', dee.user!.id, { frontDoc: '/f', backDoc: '/b' });
    const impersonating = await h.call('impersonate', { caller: admin, userId: annId });
    await h.call('exitImpersonation', { caller: await h.callerOf(impersonating.sessionToken) });
    await h.call('changePassword', {
      caller: annCaller,
      oldPassword: ann.password,
      password: 'Changed-pass-9',
    });
    await waitFor(
      async () =>
        ((await h.store.count(SECURITY_EVENTS)) > 0 && (await h.store.count(AUDIT_ENTRIES)) > 0) || null,
      'audit entries and security events recorded',
    );
    await waitFor(consumed, 'every fact consumed');
    await h.stopService();
    const before = await snapshotCollections(h.store, ID_OF);

    // the run covers what the rebuild must restore
    const users = new Map((before[USERS] as UserView[]).map((u) => [u.id, u]));
    expect([...users.keys()].sort()).toEqual([admin.userId, annId, bob.user!.id, cy.user!.id].sort());
    expect(await h.opened(users.get(annId)!)).toMatchObject({
      isVerified: true,
      bio: 'Investor',
      phone: '+44 20 7946 0000',
      kycStatus: 'Approved',
      kycFrontDoc: '/f',
      balanceCents: 10_000,
      investmentBalanceCents: 2_500,
      updatedAt: annUpdatedAt,
    });
    expect(users.get(cy.user!.id)?.role).toBe('author');
    const referrals = await Promise.all((before[REFERRALS] as ReferralView[]).map((r) => h.opened(r)));
    expect(referrals).toEqual([expect.objectContaining({ id: bob.user!.id, name: 'Bobby' })]);
    expect(referrals[0].photo).toBe('https://example.com/bob.png');
    expect(before[EMAIL_INDEX]).toHaveLength(4);
    expect(before[REFERRAL_INDEX]).toHaveLength(4);
    const actions = (before[AUDIT_ENTRIES] as Array<{ action: string }>).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['RoleChanged', 'UserDeleted', 'ImpersonationStarted', 'ImpersonationEnded']),
    );
    const kinds = (before[SECURITY_EVENTS] as Array<{ userId: string; kind: string }>).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['new_device', 'password_changed']));

    // the search tokens (keyed `<token>:<userId>`, no id field): the living users', none of Dee's
    const tokensBefore = (await snapshotCollections(h.store, { [SEARCH_TOKENS]: 'token' }))[SEARCH_TOKENS];
    const owners = new Set((tokensBefore as SearchTokenDoc[]).map((t) => t.userId));
    expect([...owners].sort()).toEqual([...users.keys()].sort());

    await dropCollections(h.store, ID_OF);
    await h.store.transaction(async (tx) => {
      for (const t of await tx.find<SearchTokenDoc>(SEARCH_TOKENS))
        await tx.delete(SEARCH_TOKENS, searchTokenId(t.token, t.userId));
    });
    for (const c of [...Object.keys(ID_OF), SEARCH_TOKENS]) expect(await h.store.count(c)).toBe(0);

    // identity's own log, event by event, through the projection the command handler runs (search tokens
    // hashed with the service's key, names opened with the users' keys: Dee's is gone, so she gets none)
    const search: SearchTokenizer = {
      token: createNodeCrypto({ secretsKey: h.secretsKey, hashKey: 'unused' }).searchToken,
      open: (v) => h.personalData.openOrNull(v),
    };
    for (const event of await h.events()) {
      await h.store.transaction(async (tx) => {
        await projectInline(tx, [event as StoredEvent<UserEvent>], search);
        await projectSignIns(tx, [event]);
      });
    }
    // the other services' topics from the beginning (a fresh group) through the live consumer's handler
    for (const topic of EXTERNAL_TOPICS) {
      await replayTopic(h.bus, h.store, topic, h.bus.size(topic), applyExternalFact);
    }
    // every service's topic through the audit consumer's handler
    for (const topic of AUDITED_TOPICS) {
      await replayTopic(h.bus, h.store, topic, h.bus.size(topic), applyAuditEvent(topic));
    }

    expect(await snapshotCollections(h.store, ID_OF)).toEqual(before);
    expect((await snapshotCollections(h.store, { [SEARCH_TOKENS]: 'token' }))[SEARCH_TOKENS]).toEqual(
      tokensBefore,
    );
  } finally {
    await h.stop();
  }
});
