/**
 * The Redis of `make cluster` (scripts/cluster/redis.ts), on the machine's redis-server binary, a temp folder
 * and a free port: a client that does not log in as the ACL user is refused, the user reaches only Meridian's
 * keys and no dangerous command, and a session (identity's key-value store, with its expiry) survives a
 * restart through the append-only file. The ACL rule that compose and infra/k8s write with their shell
 * (docker-compose.yml's redis command) is the same as the cluster's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import { keptSecrets } from '@meridian/standalone/secrets';
import { freePort } from '@meridian/platform/util/freePort';
import {
  REDIS_USER,
  redactRedisUrl,
  redisAclLine,
  redisUnavailableReason,
  startLocalRedis,
  type LocalRedis,
} from '../scripts/cluster/redis.js';
import { readText } from './infra.env.js';

const skipReason = redisUnavailableReason();
if (skipReason) console.log(`[skip] the cluster's Redis: ${skipReason}`);

const PASSWORD = 'cluster-redis-test-password-0123';

/** PING's answer, or the error's message, for a client that logs in as `user` (or not at all). */
async function pingAs(port: number, user?: string, password?: string): Promise<string> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableReadyCheck: false,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    if (user) await client.auth(user, password ?? '');
    return await client.ping();
  } catch (err) {
    return (err as Error).message;
  } finally {
    client.disconnect();
  }
}

describe.skipIf(skipReason !== null)("make cluster's own Redis", () => {
  let dir: string;
  let redis: LocalRedis;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'meridian-redis-'));
    port = await freePort();
    redis = await startLocalRedis({ dir: join(dir, 'redis'), port, password: PASSWORD });
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a client that does not log in, or logs in with a wrong password; serves the ACL user', async () => {
    expect(redis.url).toBe(`redis://${REDIS_USER}:${PASSWORD}@127.0.0.1:${port}`);
    expect(await pingAs(port)).toMatch(/NOAUTH/);
    expect(await pingAs(port, 'default', PASSWORD)).toMatch(/WRONGPASS/);
    expect(await pingAs(port, REDIS_USER, 'wrong-password')).toMatch(/WRONGPASS/);
    expect(await pingAs(port, REDIS_USER, PASSWORD)).toBe('PONG');
    const client = new Redis(redis.url, { maxRetriesPerRequest: 0 }); // the URL as every process gets it
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
    expect(redactRedisUrl(redis.url)).toBe(`redis://${REDIS_USER}:***@127.0.0.1:${port}`);
  });

  it("the user reaches Meridian's keys only, and no dangerous command", async () => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    try {
      expect(await client.set('meridian:identity:probe', '1')).toBe('OK');
      await expect(client.set('elsewhere', '1')).rejects.toThrow(/NOPERM/);
      await expect(client.flushall()).rejects.toThrow(/NOPERM/);
      await expect(client.config('GET', 'dir')).rejects.toThrow(/NOPERM/);
      await expect(client.shutdown('NOSAVE')).rejects.toThrow(/NOPERM/);
    } finally {
      client.disconnect();
    }
  });

  it('keeps the password out of its files: the ACL file holds its SHA-256, 600, in a folder 700', () => {
    const acl = readFileSync(join(dir, 'redis', 'users.acl'), 'utf8');
    expect(acl).toBe(`user default off\n${redisAclLine(PASSWORD)}\n`);
    expect(acl).not.toContain(PASSWORD);
    expect(readFileSync(join(dir, 'redis', 'redis.conf'), 'utf8')).not.toContain(PASSWORD);
    expect(statSync(join(dir, 'redis', 'users.acl')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'redis')).mode & 0o777).toBe(0o700);
  });

  it('a session survives a restart of Redis (append-only file), its expiry too', async () => {
    const kv = createRedisKeyValueStore({ url: redis.url, prefix: 'meridian:identity:' });
    try {
      await kv.set('session:s-1', JSON.stringify({ userId: 'u-1' }), { ttlMs: 3_600_000 });
      const before = redis.pid();
      await redis.restart();
      expect(redis.pid()).not.toBe(before);
      expect(JSON.parse((await kv.get('session:s-1')) ?? 'null')).toEqual({ userId: 'u-1' });
      const ttl = await kv.ttl('session:s-1');
      expect(ttl).toBeGreaterThan(3_500_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      // and the restarted server still refuses a client that does not log in
      expect(await pingAs(port)).toMatch(/NOAUTH/);
    } finally {
      await kv.close();
    }
  });

  it("compose's shell writes the same ACL rule from REDIS_PASSWORD (infra/k8s runs the same script)", () => {
    const compose = parse(readText('docker-compose.yml')) as {
      services: Record<string, { command: string[] }>;
    };
    const script = compose.services.redis!.command[2]!;
    const [writeAcl] = script
      .replaceAll('$$', '$')
      .replaceAll('/data', join(dir, 'compose'))
      .split(' && exec ');
    const r = spawnSync('sh', ['-c', `mkdir -p ${join(dir, 'compose')} && ${writeAcl}`], {
      env: { PATH: process.env.PATH, REDIS_PASSWORD: PASSWORD },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'compose', 'users.acl'), 'utf8')).toBe(
      `user default off\n${redisAclLine(PASSWORD)}\n`,
    );
  });

  it("make cluster's generated REDIS_PASSWORD is kept with its other secrets (600) and reused", () => {
    const file = join(dir, 'secrets.json');
    const more = { REDIS_PASSWORD: () => 'generated-redis-password-0123456' };
    const first = keptSecrets(file, {}, more);
    expect(first.REDIS_PASSWORD).toBe('generated-redis-password-0123456');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = keptSecrets(file, {}, { REDIS_PASSWORD: () => 'another-one-0123456789abcdef' });
    expect(again.REDIS_PASSWORD).toBe(first.REDIS_PASSWORD);
    expect(again.JWT_SECRET).toBe(first.JWT_SECRET);
  });
});
