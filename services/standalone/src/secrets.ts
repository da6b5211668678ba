/**
 * The secrets a run of Meridian needs (JWT_SECRET, SECRETS_KEY, KYC_INTERNAL_TOKEN, INTERNAL_SERVICE_TOKEN)
 * and the first admin's login, generated at the first start and kept in one JSON file (mode 600, its
 * folder made 700): `make start` keeps them in DATA_DIR/secrets.json, `make cluster` in
 * data/cluster/secrets.json. Never fixed public defaults. A value set in the environment wins (and is
 * kept); a kept one is used as it is.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface KeptSecrets {
  JWT_SECRET: string;
  SECRETS_KEY: string;
  KYC_INTERNAL_TOKEN: string;
  INTERNAL_SERVICE_TOKEN: string;
  ADMIN_EMAIL: string;
  ADMIN_PASSWORD: string;
}

export const DEFAULT_ADMIN_EMAIL = 'admin@meridian.local';

/** A fresh set; the password has upper and lower case letters, a digit and a symbol. */
export function generateSecrets(): KeptSecrets {
  return {
    JWT_SECRET: randomBytes(32).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('hex'),
    KYC_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    INTERNAL_SERVICE_TOKEN: randomBytes(24).toString('base64url'),
    ADMIN_EMAIL: DEFAULT_ADMIN_EMAIL,
    ADMIN_PASSWORD: `Mer-${randomBytes(9).toString('base64url')}1a`,
  };
}

/**
 * The secrets for a run: env first, then `file`, then generated; written back to `file` (mode 600).
 * `more` names secrets of a run beyond KeptSecrets (make cluster's REDIS_PASSWORD) and how each is made.
 * `generatedPassword` is the admin password when this call made it (print it once), else undefined.
 */
export function keptSecrets<K extends string = never>(
  file: string,
  env: Record<string, string | undefined>,
  more: Record<K, () => string> = {} as Record<K, () => string>,
): KeptSecrets & Record<K, string> & { generatedPassword?: string } {
  const saved = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string | undefined>)
    : {};
  const fresh: Record<string, string> = { ...generateSecrets() };
  for (const [k, make] of Object.entries<() => string>(more)) fresh[k] = make();
  const secrets = Object.fromEntries(
    Object.keys(fresh).map((k) => [k, env[k] || saved[k] || fresh[k]]),
  ) as unknown as KeptSecrets & Record<K, string>;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  const generated = secrets.ADMIN_PASSWORD === fresh.ADMIN_PASSWORD;
  return { ...secrets, ...(generated ? { generatedPassword: secrets.ADMIN_PASSWORD } : {}) };
}
