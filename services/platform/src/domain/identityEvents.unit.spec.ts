import { describe, expect, it } from 'vitest';
import { USER_REGISTERED } from '../testing/identityEvents.js';
import { readIdentityEvent, type IdentityEventType } from './identityEvents.js';

const ALL: readonly IdentityEventType[] = ['UserRegistered', 'RoleChanged', 'ProfileUpdated', 'UserDeleted'];

describe('readIdentityEvent', () => {
  it('reads a UserRegistered as identity publishes it, sealed values as they are', () => {
    const data = {
      ...USER_REGISTERED,
      name: 'pd1.name',
      email: 'pd1.email',
      referredBy: 'u0',
      phone: 'pd1.phone',
      country: 'pd1.country',
    };
    expect(readIdentityEvent({ type: 'UserRegistered', data }, ALL)).toEqual({
      type: 'UserRegistered',
      data,
    });
  });

  it('reads a RoleChanged, a ProfileUpdated and a UserDeleted with every field of their message', () => {
    const roleChanged = {
      userId: 'u1',
      email: 'pd1.email',
      name: 'pd1.name',
      fromRole: 'subscriber',
      toRole: 'admin',
      changedBy: 'a1',
    };
    expect(readIdentityEvent({ type: 'RoleChanged', data: roleChanged }, ALL)).toEqual({
      type: 'RoleChanged',
      data: roleChanged,
    });
    expect(
      readIdentityEvent(
        {
          type: 'ProfileUpdated',
          data: { userId: 'u1', fields: ['name', 'bio'], name: 'pd1.n', bio: 'pd1.b' },
        },
        ALL,
      ),
    ).toEqual({
      type: 'ProfileUpdated',
      data: {
        userId: 'u1',
        fields: ['name', 'bio'],
        name: 'pd1.n',
        phone: '',
        bio: 'pd1.b',
        country: '',
        photo: '',
      },
    });
    expect(readIdentityEvent({ type: 'UserDeleted', data: { userId: 'u1', deletedBy: 'a1' } }, ALL)).toEqual({
      type: 'UserDeleted',
      data: { userId: 'u1', deletedBy: 'a1' },
    });
  });

  it('reads a missing string as empty and a missing or malformed list as empty', () => {
    expect(readIdentityEvent({ type: 'UserDeleted', data: { userId: 'u1' } }, ALL)?.data).toEqual({
      userId: 'u1',
      deletedBy: '',
    });
    expect(
      readIdentityEvent({ type: 'ProfileUpdated', data: { userId: 'u1', fields: 'name', name: 'pd1.n' } }, [
        'ProfileUpdated',
      ])?.data.fields,
    ).toEqual([]);
    expect(readIdentityEvent({ type: 'ProfileUpdated', data: { userId: 'u1' } }, ALL)?.data).toMatchObject({
      fields: [],
      name: '',
    });
    expect(readIdentityEvent({ type: 'UserRegistered', data: { userId: 'u1' } }, ALL)?.data).toMatchObject({
      userId: 'u1',
      name: '',
      email: '',
      role: '',
      referredBy: '',
    });
  });

  it('reads an event without data as one whose every field is missing', () => {
    expect(readIdentityEvent({ type: 'UserDeleted', data: null }, ALL)).toEqual({
      type: 'UserDeleted',
      data: { userId: '', deletedBy: '' },
    });
    expect(readIdentityEvent({ type: 'RoleChanged', data: undefined }, ALL)?.data.userId).toBe('');
    expect(readIdentityEvent({ type: 'UserRegistered', data: 'not an object' }, ALL)?.data.userId).toBe('');
  });

  it('answers null for a type outside the list asked for, and for an event it does not read', () => {
    const deleted = { type: 'UserDeleted', data: { userId: 'u1', deletedBy: 'a1' } };
    expect(readIdentityEvent(deleted, ['UserRegistered', 'ProfileUpdated'])).toBeNull();
    expect(readIdentityEvent(deleted, ['UserDeleted'])?.type).toBe('UserDeleted');
    expect(readIdentityEvent({ type: 'PasswordChanged', data: { userId: 'u1' } }, ALL)).toBeNull();
    expect(readIdentityEvent({ type: 'userdeleted', data: { userId: 'u1' } }, ALL)).toBeNull();
  });
});
