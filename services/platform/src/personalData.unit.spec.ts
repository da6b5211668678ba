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
} from './personalData.js';

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
