/**
 * Every read model of the kyc service can be dropped and rebuilt from events alone: a realistic run
 * (identity's users arriving, renamed and deleted; uploads over HTTP; approvals, a rejection and a
 * resubmission over gRPC; a case erased because its user was deleted), then both collections are
 * snapshotted, dropped and rebuilt — the cases from the service's own log through the projection the
 * command handler runs, the users from identity's topic replayed from the beginning through the
 * directory half of the live consumer (the erasure half is a process whose outcome, KycCaseErased, is
 * already in the log) — and compared. The documents' bytes are not a read model: they live in the
 * document store, named by the events.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { dropCollections, replayTopic, snapshotCollections } from '@meridian/platform/testing/readModels';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { CASES, USERS } from '../app/collections.js';
import { rememberUser } from '../app/handleIdentityEvent.js';
import { projectCase } from '../app/kycCases.js';
import type { KycEvent } from '../domain/kycCase.js';
import { startKycHarness } from '../testing/harness.js';
import { SAMPLES } from '../testing/samples.js';
import type { KycCaseView } from './kycCaseView.js';

/** The id field of each read-model collection (what a drop deletes by). */
const ID_OF = { [CASES]: 'userId', [USERS]: 'id' };

it('drops every read model and rebuilds it equal from the events alone', async () => {
  const h = await startKycHarness();
  try {
    const [ada, bob, cy, dee] = ['ada', 'bob', 'cy', 'dee'].map((n) => `${n}-${randomUUID()}`);
    const registered = (userId: string, name: string) => ({
      type: 'UserRegistered',
      data: { userId, name, email: `${name.toLowerCase()}@example.com`, role: 'subscriber' },
    });
    await h.publishIdentity([
      registered(ada, 'Ada'),
      registered(bob, 'Bob'),
      registered(cy, 'Cy'),
      registered(dee, 'Dee'),
      { type: 'ProfileUpdated', data: { userId: bob, fields: ['name', 'bio'], name: 'Bobby', bio: 'hi' } },
    ]);
    await waitFor(() => h.identityConsumed(), 'users known');
    const upload = async (userId: string, files = { front: SAMPLES.png, back: SAMPLES.pdf }) =>
      expect((await h.upload(userId, files)).status).toBe(200);

    await upload(ada);
    await h.call('approve', { ...h.asAdmin(), userId: ada });
    await upload(bob);
    await h.call('reject', { ...h.asAdmin('admin-2'), userId: bob, reason: 'Blurry' });
    await upload(bob, { front: SAMPLES.jpeg, back: SAMPLES.heic });
    await upload(cy);
    await h.publishIdentity([{ type: 'UserDeleted', data: { userId: cy, deletedBy: 'admin-1' } }]);
    await waitFor(() => h.identityConsumed(), 'UserDeleted consumed');
    await h.handle.stop();
    const before = await snapshotCollections(h.store, ID_OF);

    // the run covers what the rebuild must restore
    const cases = new Map((before[CASES] as KycCaseView[]).map((c) => [c.userId, c]));
    expect([...cases.keys()].sort()).toEqual([ada, bob].sort());
    expect(cases.get(ada)).toMatchObject({ status: 'Approved', name: 'Ada', decidedBy: 'admin-1' });
    expect(cases.get(bob)).toMatchObject({ status: 'Pending', name: 'Bobby', rejectionReason: '' });
    expect(cases.get(bob)?.front?.contentType).toBe('image/jpeg');
    expect(before[USERS]).toHaveLength(3);

    await dropCollections(h.store, ID_OF);
    for (const c of Object.keys(ID_OF)) expect(await h.store.count(c)).toBe(0);

    // the cases: the service's own log, event by event, through the command handler's projection
    for (const event of await h.store.readAll(0, 10_000)) {
      const e = event as StoredEvent<KycEvent>;
      await h.store.transaction((tx) => projectCase(tx, [e], e.data.userId));
    }
    // the users: identity's topic from the beginning (a fresh group)
    const identity = topicOf('identity');
    await replayTopic(h.bus, h.store, identity, h.bus.size(identity), rememberUser);

    expect(await snapshotCollections(h.store, ID_OF)).toEqual(before);
  } finally {
    await h.stop();
  }
});
