import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

const ARGON2ID = 2; // Algorithm.Argon2id (a const enum, not importable under isolatedModules)
import type { PasswordHasher } from '../app/ports.js';

/**
 * How many argon2 computations run at once by default: one core is left to the event loop.
 *
 * A hash is ~5 ms of one core's time at the OWASP parameters, and @node-rs/argon2 runs it on the libuv
 * threadpool (4 threads unless UV_THREADPOOL_SIZE). Unbounded, concurrent sign-ins put every pool thread
 * on argon2: on 2 cores four hash threads then preempt the event loop that does the rest of each login
 * (HTTP, gRPC, SQLite) and every other request, files and DNS wait behind the hashes for a pool thread,
 * and the hashes themselves cost more (context switches, four 19 MiB working sets thrashing the cache).
 * Bounded at cores − 1 (at least 1), the hashes queue here instead, the pool keeps threads for other
 * work, and the login path runs beside the hashing on the core left free (bench/logins.ts).
 */
export const defaultHashConcurrency = () => Math.max(1, availableParallelism() - 1);

/** A FIFO gate: at most `limit` tasks run at once, the others start in the order they came. */
export function boundedConcurrency(limit: number) {
  let running = 0;
  const queue: Array<() => void> = [];
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else running -= 1;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < limit) running += 1;
    else await new Promise<void>((resolve) => queue.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/**
 * argon2id (OWASP 2024 baseline: m=19 MiB, t=2, p=1). Tests may pass cheaper parameters.
 * `concurrency`: argon2 computations in flight at once, the rest wait in order (default
 * defaultHashConcurrency()).
 */
export function createArgon2PasswordHasher(
  options: { memoryCost?: number; timeCost?: number; concurrency?: number } = {},
): PasswordHasher & { readonly concurrency: number } {
  const params = {
    algorithm: ARGON2ID,
    memoryCost: options.memoryCost ?? 19_456,
    timeCost: options.timeCost ?? 2,
    parallelism: 1,
  };
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? defaultHashConcurrency()));
  const inPool = boundedConcurrency(concurrency);
  return {
    concurrency,
    hash: (password) => inPool(() => hash(password, params)),
    async verify(stored, password) {
      try {
        return await inPool(() => verify(stored, password));
      } catch {
        return false;
      }
    },
  };
}
