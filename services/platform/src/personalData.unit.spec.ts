import { describe, expect, it } from 'vitest';
import {
  DEV_INTERNAL_SERVICE_TOKEN,
  internalServiceToken,
  isSealed,
  MemoryPersonalDataKeys,
  PersonalData,
  personalDataOf,
  SHREDDED,
  sealedOwner,
  isUserKeyDestroyed,
  USER_DELETED_CODE,
  UserKeyDestroyedError,
} from './personalData.js';

/** The keys as another process sees them: its own copy of each key it fetched. */
const copiesOf = (keys: MemoryPersonalDataKeys) => ({
  find: async (id: string) => {
    const key = await keys.find(id);
    return key && Buffer.from(key);
  },
  findOrCreate: async (id: string) => Buffer.from(await keys.findOrCreate(id)),
  destroy: (id: string) => keys.destroy(id),
});

describe('PersonalData', () => {
  it('seals per user, opens, and reads [deleted] once the key is destroyed', async () => {
    const pd = new PersonalData(new MemoryPersonalDataKeys());
    const a = await pd.seal('u1', 'ann@example.com');
    const b = await pd.seal('u2', 'bob@example.com');
    expect(isSealed(a) && isSealed(b)).toBe(true);
    expect(a).not.toContain('ann');
    expect(sealedOwner(a)).toBe('u1');
    expect(await pd.open(a)).toBe('ann@example.com');
    expect(await pd.open('plain legacy value')).toBe('plain legacy value');
    await pd.shred('u1');
    expect(await pd.open(a)).toBe(SHREDDED);
    expect(await pd.openOrNull(a)).toBeNull();
    expect(await pd.key('u1')).toBeNull();
    expect(await pd.open(b)).toBe('bob@example.com');
  });

  it("a destroyed key never comes back: the user's id is a tombstone, sealing for them is refused", async () => {
    const keys = new MemoryPersonalDataKeys();
    const pd = new PersonalData(keys);
    const before = await pd.seal('u1', 'ann@example.com');
    await pd.shred('u1');
    await expect(keys.findOrCreate('u1')).rejects.toBeInstanceOf(UserKeyDestroyedError);
    const refused = await pd.seal('u1', 'ann@example.com').catch((e: unknown) => e);
    expect(isUserKeyDestroyed(refused)).toBe(true);
    expect(refused).toMatchObject({ kind: 'precondition', code: USER_DELETED_CODE });
    await expect(pd.sealBinary('u1', Buffer.from('scan'))).rejects.toBeInstanceOf(UserKeyDestroyedError);
    await expect(pd.digest('u1', '0xabc')).rejects.toBeInstanceOf(UserKeyDestroyedError);
    expect(await keys.find('u1')).toBeNull();
    expect(await pd.open(before)).toBe(SHREDDED);
    // destroying again changes nothing; other users are untouched, a new user still gets a key
    await pd.shred('u1');
    expect(await pd.open(await pd.seal('u2', 'bob'))).toBe('bob');
    expect(isUserKeyDestroyed(new Error('other'))).toBe(false);
  });

  it('a replica that never heard the deletion stops opening the data once its cached key ages out', async () => {
    const keys = new MemoryPersonalDataKeys();
    let now = 1_000;
    const copies = copiesOf(keys);
    const heard = new PersonalData(keys, { keyTtlMs: 60_000, now: () => now });
    const other = new PersonalData(copies, { keyTtlMs: 60_000, now: () => now });
    const sealed = await heard.seal('u1', 'ann@example.com');
    expect(await other.open(sealed)).toBe('ann@example.com');
    await heard.shred('u1');
    expect(await heard.open(sealed)).toBe(SHREDDED);
    now += 59_999;
    expect(await other.open(sealed)).toBe('ann@example.com');
    now += 1;
    expect(await other.open(sealed)).toBe(SHREDDED);
    expect(await other.openOrNull(sealed)).toBeNull();
  });

  it("a replica that hears identity's UserDeleted drops its cached key at once; other events keep it", async () => {
    const keys = new MemoryPersonalDataKeys();
    const copies = copiesOf(keys);
    const identity = new PersonalData(keys);
    const replica = new PersonalData(copies, { keyTtlMs: 60_000 });
    const sealed = await identity.seal('u1', 'ann@example.com');
    expect(await replica.open(sealed)).toBe('ann@example.com');
    await identity.shred('u1');
    for (const event of [
      { type: 'ProfileUpdated', data: { userId: 'u1', fields: ['name'] } },
      { type: 'UserDeleted', data: { userId: 'u2' } },
      { type: 'UserDeleted', data: null },
      { type: 'UserDeleted' },
    ]) {
      replica.forgetIfDeleted(event);
      expect(await replica.open(sealed), event.type).toBe('ann@example.com');
    }
    replica.forgetIfDeleted({ type: 'UserDeleted', data: { userId: 'u1', deletedBy: 'a1' } });
    expect(await replica.open(sealed)).toBe(SHREDDED);
  });

  it('every seal has its own iv, across refills of the iv pool, and each opens (text and binary)', async () => {
    const pd = new PersonalData(new MemoryPersonalDataKeys());
    const ivs = new Set<string>();
    for (let i = 0; i < 1_500; i++) {
      const sealed = await pd.seal('u-iv', `value ${i}`);
      ivs.add(Buffer.from(sealed.split('.')[2]!, 'base64url').toString('hex'));
      if (i % 250 === 0) expect(await pd.open(sealed)).toBe(`value ${i}`);
      const binary = await pd.sealBinary('u-iv', Buffer.from([i & 255]));
      ivs.add(binary.subarray(6 + 'u-iv'.length, 6 + 'u-iv'.length + 12).toString('hex'));
      if (i % 250 === 0) expect((await pd.openBinary(binary))?.[0]).toBe(i & 255);
    }
    expect(ivs.size).toBe(3_000);
  });

  it('digest: the same value of the same user gives the same digest, unlike sealing', async () => {
    const pd = new PersonalData(new MemoryPersonalDataKeys());
    const a = await pd.digest('u1', '0xabc');
    expect(await pd.digest('u1', '0xabc')).toBe(a);
    expect(await pd.digest('u1', '0xabd')).not.toBe(a);
    expect(await pd.digest('u2', '0xabc')).not.toBe(a);
    expect(a).not.toContain('abc');
    expect(await pd.seal('u1', '0xabc')).not.toBe(await pd.seal('u1', '0xabc'));
  });

  it('openAll opens every sealed string of a JSON tree and leaves the rest as it is', async () => {
    const pd = new PersonalData(new MemoryPersonalDataKeys());
    const tree = {
      queue: 'withdrawals',
      item: {
        amount: 60,
        user: { name: await pd.seal('u1', 'Ann'), email: await pd.seal('u1', 'ann@example.com') },
        walletAddress: await pd.seal('u2', '0xabc'),
        tags: [await pd.seal('u1', 'vip'), 'x'],
        ok: true,
        none: null,
      },
    };
    const plain = { queue: 'q', n: 1 };
    expect(await pd.openAll(plain)).toBe(plain);
    await pd.shred('u2');
    expect(await pd.openAll(tree)).toEqual({
      queue: 'withdrawals',
      item: {
        amount: 60,
        user: { name: 'Ann', email: 'ann@example.com' },
        walletAddress: SHREDDED,
        tags: ['vip', 'x'],
        ok: true,
        none: null,
      },
    });
  });

  it('personalDataOf: the one given, else one shared by the whole process', () => {
    const given = new PersonalData(new MemoryPersonalDataKeys());
    expect(personalDataOf({ personalData: given })).toBe(given);
    expect(personalDataOf({})).toBe(personalDataOf({}));
  });

  it('INTERNAL_SERVICE_TOKEN: as set, a development default outside production, none in production', () => {
    expect(internalServiceToken({ INTERNAL_SERVICE_TOKEN: 'x'.repeat(30) })).toBe('x'.repeat(30));
    expect(internalServiceToken({ NODE_ENV: 'development' })).toBe(DEV_INTERNAL_SERVICE_TOKEN);
    expect(internalServiceToken({ NODE_ENV: 'production' })).toBeUndefined();
  });
});
