/** The argon2id hasher's pool: a bound on hashes at once, in order, and the hashes themselves. */
import { describe, expect, it } from 'vitest';
import { boundedConcurrency, createArgon2PasswordHasher } from './passwordHasher.argon2.js';

/** A task that runs until `release()` is called. */
function pending() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

describe('boundedConcurrency', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in order', async () => {
    const run = boundedConcurrency(2);
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => pending());
    const results = gates.map((g, i) =>
      run(async () => {
        started.push(i);
        await g.done;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1].release();
    await expect(results[1]).resolves.toBe(1);
    expect(started).toEqual([0, 1, 2]);
    gates[0].release();
    await expect(results[0]).resolves.toBe(0);
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates) g.release();
    await expect(Promise.all(results)).resolves.toEqual([0, 1, 2, 3, 4]);
  });

  it('frees the slot of a task that fails', async () => {
    const run = boundedConcurrency(1);
    const failed = run(() => Promise.reject(new Error('boom')));
    const next = run(async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});

describe('createArgon2PasswordHasher', () => {
  it('defaults to one hash fewer than the cores (at least one) and takes a bound', () => {
    expect(createArgon2PasswordHasher().concurrency).toBeGreaterThanOrEqual(1);
    expect(createArgon2PasswordHasher({ concurrency: 3 }).concurrency).toBe(3);
    expect(createArgon2PasswordHasher({ concurrency: 0 }).concurrency).toBe(1);
  });

  it('verifies many passwords at once through a pool of one, each against its own hash', async () => {
    const hasher = createArgon2PasswordHasher({ memoryCost: 1024, timeCost: 1, concurrency: 1 });
    const stored = await Promise.all(['a-Secret1', 'b-Secret2', 'c-Secret3'].map((p) => hasher.hash(p)));
    expect(stored[0]).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    const checks = await Promise.all([
      hasher.verify(stored[0], 'a-Secret1'),
      hasher.verify(stored[1], 'b-Secret2'),
      hasher.verify(stored[2], 'wrong'),
      hasher.verify('not-a-hash', 'a-Secret1'),
    ]);
    expect(checks).toEqual([true, true, false, false]);
  });
});
