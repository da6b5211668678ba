/**
 * The held-request user directory on identity's events, each applied in a transaction of a SQLite store: what
 * a registration, a profile update and a deletion write, and what an event without a field leaves alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { CLOSED_ACCOUNTS } from '@meridian/platform/projections/closedAccounts';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import { USERS, handleIdentityEvent, userById } from './userDirectory.js';

const stores: Array<ReturnType<typeof createSqliteServiceStore>> = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

/** A fresh store and a function applying identity events to it, one transaction each. */
function directory() {
  const store = createSqliteServiceStore(':memory:');
  stores.push(store);
  const apply = async (...events: StoredEvent[]) => {
    for (const e of events) await store.transaction((tx) => handleIdentityEvent(e, tx));
  };
  return { store, apply };
}

const identity = (type: string, data: unknown) => busEvent('user-u1', 1, data, type);
const registered = identity('UserRegistered', {
  userId: 'u1',
  name: 'pd1.ada',
  email: 'pd1.ada@x',
  role: 'subscriber',
});

describe('held-request user directory', () => {
  it('keeps the sealed name and email of a registration, and a new name of a profile update', async () => {
    const { store, apply } = directory();
    await apply(registered);
    expect(await userById(store, 'u1')).toEqual({ userId: 'u1', name: 'pd1.ada', email: 'pd1.ada@x' });
    await apply(identity('ProfileUpdated', { userId: 'u1', fields: ['name'], name: 'pd1.ada-l' }));
    expect(await userById(store, 'u1')).toEqual({ userId: 'u1', name: 'pd1.ada-l', email: 'pd1.ada@x' });
  });

  it('leaves the name alone when the update does not name it, or carries none', async () => {
    const { store, apply } = directory();
    await apply(
      registered,
      identity('ProfileUpdated', { userId: 'u1', fields: ['bio'], name: 'pd1.other', bio: 'pd1.bio' }),
      identity('ProfileUpdated', { userId: 'u1', fields: ['name'] }),
    );
    expect(await userById(store, 'u1')).toEqual({ userId: 'u1', name: 'pd1.ada', email: 'pd1.ada@x' });
  });

  it('registers with blanks for a missing name or email, and ignores an update of an unknown user', async () => {
    const { store, apply } = directory();
    await apply(
      identity('UserRegistered', { userId: 'u1' }),
      identity('ProfileUpdated', { userId: 'u2', fields: ['name'], name: 'pd1.bob' }),
    );
    expect(await userById(store, 'u1')).toEqual({ userId: 'u1', name: '', email: '' });
    expect(await userById(store, 'u2')).toBeNull();
  });

  it('ignores an event without a user id, without data, or of another type', async () => {
    const { store, apply } = directory();
    await apply(
      identity('UserRegistered', { name: 'pd1.nobody' }),
      identity('UserRegistered', null),
      identity('UserDeleted', {}),
      identity('RoleChanged', { userId: 'u1', name: 'pd1.ada', toRole: 'admin' }),
      identity('PasswordChanged', { userId: 'u1', name: 'pd1.ada' }),
    );
    expect(await store.count(USERS)).toBe(0);
    expect(await store.count(CLOSED_ACCOUNTS)).toBe(0);
  });

  it('drops a deleted user and closes the account for good, by whom the event says (blank when it says not)', async () => {
    const { store, apply } = directory();
    const deleted = identity('UserDeleted', { userId: 'u1', deletedBy: 'admin-1' });
    await apply(registered, deleted, identity('UserDeleted', { userId: 'u2' }));
    expect(await userById(store, 'u1')).toBeNull();
    expect(await store.get(CLOSED_ACCOUNTS, 'u1')).toEqual({
      userId: 'u1',
      closedAt: new Date(deleted.occurredAt).toISOString(),
      closedBy: 'admin-1',
      deleted: true,
    });
    expect(await store.get(CLOSED_ACCOUNTS, 'u2')).toMatchObject({
      userId: 'u2',
      closedBy: '',
      deleted: true,
    });
  });
});
