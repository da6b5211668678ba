import { describe, expect, it } from 'vitest';
import { ConcurrencyError, WriteConflict } from '../eventSourcing/errors.js';
import { retryAfterConflict } from './async.js';

/** An attempt that loses the race `losses` times (throwing `lost()`), then answers how many runs it took. */
function losing(losses: number, lost: () => Error = () => new WriteConflict('changed')) {
  let runs = 0;
  return {
    attempt: async () => {
      runs++;
      if (runs <= losses) throw lost();
      return runs;
    },
    runs: () => runs,
  };
}

describe('retryAfterConflict', () => {
  it('runs a lost attempt again from the start and answers the first one that wins', async () => {
    const race = losing(2);
    await expect(retryAfterConflict(3, race.attempt)).resolves.toBe(3);
    expect(race.runs()).toBe(3);
  });

  it("an event store's ConcurrencyError is a lost race too", async () => {
    const race = losing(1, () => new ConcurrencyError('user-1', 3, 4));
    await expect(retryAfterConflict(5, race.attempt)).resolves.toBe(2);
  });

  it('stops after `attempts` runs: the last conflict reaches the caller', async () => {
    const race = losing(10, () => new ConcurrencyError('user-1', 3, 4));
    await expect(retryAfterConflict(4, race.attempt)).rejects.toBeInstanceOf(ConcurrencyError);
    expect(race.runs()).toBe(4);
  });

  it('any other error reaches the caller at once, with no second run', async () => {
    const race = losing(10, () => new Error('refused'));
    await expect(retryAfterConflict(4, race.attempt)).rejects.toThrow('refused');
    expect(race.runs()).toBe(1);
  });
});
