import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  commonEnvSchema,
  envVar,
  loadConfigOrExit,
  parseEnv,
  shutdownTimingsFrom,
  sqliteBackgroundCheckpoint,
} from './config.js';

const schema = commonEnvSchema.extend({
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters'),
  PORT: envVar.port(8080),
  COOKIE_SECURE: envVar.bool(false),
  SECRETS_KEY: envVar.hexKey(32),
});

const good = { JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: 'ab'.repeat(32) };

describe('parseEnv', () => {
  it('returns typed values with defaults', () => {
    const cfg = parseEnv(schema, { ...good, KAFKA_BROKERS: 'a:9092, b:9092', COOKIE_SECURE: 'true' });
    expect(cfg.PORT).toBe(8080);
    expect(cfg.COOKIE_SECURE).toBe(true);
    expect(cfg.KAFKA_BROKERS).toEqual(['a:9092', 'b:9092']);
    expect(cfg.DATA_DIR).toBe('./data');
    expect(cfg.NODE_ENV).toBe('development');
  });

  it('OUTBOX_RELAY: inline unless given (or a service defaults otherwise), thread or inline only', () => {
    expect(parseEnv(schema, good).OUTBOX_RELAY).toBe('inline');
    expect(parseEnv(schema, { ...good, OUTBOX_RELAY: 'thread' }).OUTBOX_RELAY).toBe('thread');
    expect(() => parseEnv(schema, { ...good, OUTBOX_RELAY: 'worker' })).toThrow(
      'OUTBOX_RELAY: must be thread or inline',
    );
  });

  it('names each bad variable in the message, without echoing values', () => {
    let err: unknown;
    try {
      parseEnv(schema, {
        JWT_SECRET: 'short-secret-value',
        PORT: 'eighty',
        COOKIE_SECURE: 'maybe',
        MONGO_URL: 'http://x',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toMatch(/^Invalid environment: /);
    expect(message).toContain('JWT_SECRET: must be at least 32 characters');
    expect(message).toContain('SECRETS_KEY: is required');
    expect(message).toContain('PORT:');
    expect(message).toContain('COOKIE_SECURE: must be true or false');
    expect(message).toContain('MONGO_URL: must be a mongodb:// or mongodb+srv:// URL');
    expect(message).not.toContain('short-secret-value');
    expect((err as ConfigError).problems.map((p) => p.variable).sort()).toEqual(
      ['COOKIE_SECURE', 'JWT_SECRET', 'MONGO_URL', 'PORT', 'SECRETS_KEY'].sort(),
    );
  });

  it('loadConfigOrExit prints the message and exits with 1', () => {
    const writes: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      writes.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    let code: number | undefined;
    try {
      expect(() =>
        loadConfigOrExit(schema, { SECRETS_KEY: 'ab'.repeat(32) }, (c) => {
          code = c;
          throw new Error('exited');
        }),
      ).toThrow('exited');
    } finally {
      process.stderr.write = original;
    }
    expect(code).toBe(1);
    expect(writes.join('')).toContain('Invalid environment: JWT_SECRET: is required');
    expect(loadConfigOrExit(schema, good).PORT).toBe(8080);
  });
});

describe('envVar.rateLimits', () => {
  const schema = z.object({ RATE_LIMITS_JSON: envVar.rateLimits(['login', 'register'] as const).optional() });
  it('parses budgets for known keys', () => {
    expect(
      parseEnv(schema, { RATE_LIMITS_JSON: '{"register":{"max":500,"windowMs":3600000}}' }).RATE_LIMITS_JSON,
    ).toEqual({
      register: { max: 500, windowMs: 3_600_000 },
    });
    expect(parseEnv(schema, {}).RATE_LIMITS_JSON).toBeUndefined();
  });
  it('names the variable for bad JSON, unknown keys and bad budgets', () => {
    for (const bad of [
      '{nope',
      '{"signup":{"max":1,"windowMs":1}}',
      '{"login":{"max":0,"windowMs":1000}}',
      '{"login":{"max":1.5,"windowMs":1000}}',
      '{"login":{"max":1}}',
    ]) {
      expect(() => parseEnv(schema, { RATE_LIMITS_JSON: bad }), bad).toThrow(/RATE_LIMITS_JSON/);
    }
  });
});

describe('shutdownTimingsFrom (SHUTDOWN_GRACE_MS, SHUTDOWN_DELAY_MS)', () => {
  it('takes the defaults when unset: a longer delay in production', () => {
    expect(shutdownTimingsFrom({})).toEqual({ graceMs: 20_000, delayMs: 250 });
    expect(shutdownTimingsFrom({ NODE_ENV: 'production' })).toEqual({ graceMs: 20_000, delayMs: 3_000 });
  });

  it('takes the given values, and the default for one the schema refuses', () => {
    expect(shutdownTimingsFrom({ SHUTDOWN_GRACE_MS: '5000', SHUTDOWN_DELAY_MS: '0' })).toEqual({
      graceMs: 5_000,
      delayMs: 0,
    });
    expect(shutdownTimingsFrom({ SHUTDOWN_GRACE_MS: '-1', SHUTDOWN_DELAY_MS: 'soon' })).toEqual({
      graceMs: 20_000,
      delayMs: 250,
    });
    expect(() => parseEnv(commonEnvSchema, { SHUTDOWN_DELAY_MS: 'soon' })).toThrow(/SHUTDOWN_DELAY_MS/);
  });
});

describe('sqliteBackgroundCheckpoint (MERIDIAN_SQLITE_BACKGROUND_CHECKPOINT)', () => {
  it('is on unless the variable is 0', () => {
    expect(sqliteBackgroundCheckpoint({})).toBe(true);
    expect(sqliteBackgroundCheckpoint({ MERIDIAN_SQLITE_BACKGROUND_CHECKPOINT: '1' })).toBe(true);
    expect(sqliteBackgroundCheckpoint({ MERIDIAN_SQLITE_BACKGROUND_CHECKPOINT: '0' })).toBe(false);
  });
});
