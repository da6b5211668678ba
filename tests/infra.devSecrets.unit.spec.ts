/**
 * In production every deployable refuses to start when a secret holds a development default this
 * repository publishes (the config schemas' defaults, the shared tokens): a copied development value is
 * as public as no secret at all. Nor does one start with a REDIS_URL that does not log in (no password).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_INTERNAL_SERVICE_TOKEN, parseEnv } from '@meridian/platform/config';
import { DEV_DEFAULTS as IDENTITY_DEFAULTS } from '@meridian/identity/config';
import { DEV_DEFAULTS as KYC_DEFAULTS } from '@meridian/kyc/config';
import { DEV_DEFAULTS as NOTIFICATION_DEFAULTS } from '@meridian/notification/config';
import { DEV_KYC_INTERNAL_TOKEN } from '@meridian/gateway/config';
import { DEPLOYABLES, SECRET_SAMPLES, shapeOf } from './infra.env.js';

/** Every published development secret, by the variable that takes it. */
const DEVELOPMENT_SECRETS: Array<[string, string]> = [
  ['INTERNAL_SERVICE_TOKEN', DEV_INTERNAL_SERVICE_TOKEN],
  ['JWT_SECRET', IDENTITY_DEFAULTS.JWT_SECRET],
  ['SECRETS_KEY', IDENTITY_DEFAULTS.SECRETS_KEY],
  ['SECRETS_KEY', NOTIFICATION_DEFAULTS.SECRETS_KEY],
  ['ADMIN_PASSWORD', IDENTITY_DEFAULTS.ADMIN_PASSWORD],
  ['KYC_INTERNAL_TOKEN', KYC_DEFAULTS.KYC_INTERNAL_TOKEN],
  ['KYC_INTERNAL_TOKEN', DEV_KYC_INTERNAL_TOKEN],
];

const production = { ...SECRET_SAMPLES, NODE_ENV: 'production' };

/** The problems `schema` finds in `env` (none when it parses). */
function problemsOfEnv(schema: Parameters<typeof parseEnv>[0], env: Record<string, string>) {
  try {
    parseEnv(schema, env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

describe.each(DEPLOYABLES)('%s in production', (_name, schema) => {
  const variables = Object.keys(shapeOf(schema));
  const held = DEVELOPMENT_SECRETS.filter(([variable]) => variables.includes(variable));

  it('starts with secrets of its own', () => {
    expect(() => parseEnv(schema, production)).not.toThrow();
  });

  it.each(held)('refuses %s holding a development default', (variable, value) => {
    let error: unknown;
    try {
      parseEnv(schema, { ...production, [variable]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toContainEqual({
      variable,
      message: expect.stringMatching(/development default/),
    });
    // outside production the same value is accepted
    expect(() =>
      parseEnv(schema, { ...production, NODE_ENV: 'development', [variable]: value }),
    ).not.toThrow();
  });
});

describe.each(DEPLOYABLES)('%s in production: Redis', (_name, schema) => {
  const problemsOf = (env: Record<string, string>) => problemsOfEnv(schema, env);

  it('refuses a REDIS_URL without a password, and never echoes the URL', () => {
    for (const url of [
      'redis://redis:6379',
      'redis://meridian@redis:6379/0',
      'rediss://redis.example:6380',
    ]) {
      const problems = problemsOf({ ...production, REDIS_URL: url });
      expect(problems).toEqual([{ variable: 'REDIS_URL', message: expect.stringMatching(/password/) }]);
    }
    // outside production a local Redis without a password is accepted
    expect(
      problemsOf({ ...production, NODE_ENV: 'development', REDIS_URL: 'redis://127.0.0.1:6379' }),
    ).toEqual([]);
  });

  it('accepts an ACL user with a password', () => {
    expect(problemsOf({ ...production, REDIS_URL: 'redis://meridian:s3cret-Pass@redis:6379' })).toEqual([]);
  });
});

describe.each(DEPLOYABLES)('%s in production: Kafka', (_name, schema) => {
  const problemsOf = (env: Record<string, string>) => problemsOfEnv(schema, env);

  it('refuses KAFKA_BROKERS without its own Kafka user; accepts it with one', () => {
    const withBroker = { ...production, KAFKA_BROKERS: 'kafka:9092' };
    expect(problemsOf(withBroker).map((p) => p.variable)).toEqual(['KAFKA_USERNAME', 'KAFKA_PASSWORD']);
    expect(problemsOf({ ...withBroker, KAFKA_USERNAME: 'ledger' }).map((p) => p.variable)).toEqual([
      'KAFKA_PASSWORD',
    ]);
    expect(problemsOf({ ...withBroker, KAFKA_USERNAME: 'ledger', KAFKA_PASSWORD: 'p4ss-word' })).toEqual([]);
    // outside production a broker without users (make kafka, the bus suites) is accepted
    expect(problemsOf({ ...withBroker, NODE_ENV: 'development' })).toEqual([]);
  });
});
