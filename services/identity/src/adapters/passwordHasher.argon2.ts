import { hash, verify } from '@node-rs/argon2';

const ARGON2ID = 2; // Algorithm.Argon2id (a const enum, not importable under isolatedModules)
import type { PasswordHasher } from '../app/ports.js';

/**
 * argon2id (OWASP 2024 baseline: m=19 MiB, t=2, p=1). Tests may pass cheaper parameters.
 */
export function createArgon2PasswordHasher(
  options: { memoryCost?: number; timeCost?: number } = {},
): PasswordHasher {
  const params = {
    algorithm: ARGON2ID,
    memoryCost: options.memoryCost ?? 19_456,
    timeCost: options.timeCost ?? 2,
    parallelism: 1,
  };
  return {
    hash: (password) => hash(password, params),
    async verify(stored, password) {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    },
  };
}
