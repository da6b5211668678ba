import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { SqliteServiceStore } from './adapters/serviceStore.sqlite.js';
import type { createInProcEventBus } from './adapters/eventBus.inproc.js';
import { createServiceRuntime, onShutdown, runShutdown } from './runtime.js';
import { tempDir } from './testing/tempDir.js';

const dir = tempDir('meridian-runtime-');
afterAll(() => dir.remove());

describe('createServiceRuntime', () => {
  it('chooses the embedded adapters without MONGO_URL / KAFKA_BROKERS / REDIS_URL', async () => {
    const rt = await createServiceRuntime('ledger', { DATA_DIR: dir.path, NODE_ENV: 'test' });
    expect(rt.adapters).toEqual({ store: 'sqlite', bus: 'inproc', kv: 'memory' });
    expect(existsSync(join(dir.path, 'ledger.sqlite'))).toBe(true);
    expect(existsSync(join(dir.path, 'bus.sqlite'))).toBe(true);
    await rt.store.transaction((tx) => tx.put('d', 'x', { ok: true }));
    await rt.kv.set('k', 'v');
    await rt.close();
    const again = await createServiceRuntime('ledger', { DATA_DIR: dir.path, NODE_ENV: 'test' });
    expect(await again.store.get('d', 'x')).toEqual({ ok: true });
    await again.close();
  });

  it('syncs every commit of the stores that hold money and of the bus (synchronous FULL), the others at checkpoints', async () => {
    const opened: Record<string, { store: string; bus: string }> = {};
    for (const service of [
      'ledger',
      'investment',
      'withdrawal',
      'identity',
      'kyc',
      'notification',
      'support',
    ]) {
      const rt = await createServiceRuntime(service, { DATA_DIR: dir.path, NODE_ENV: 'test' });
      opened[service] = {
        store: (rt.store as SqliteServiceStore).synchronous(),
        bus: (rt.bus as ReturnType<typeof createInProcEventBus>).synchronous(),
      };
      await rt.close();
    }
    expect(opened).toEqual({
      ledger: { store: 'FULL', bus: 'FULL' },
      investment: { store: 'FULL', bus: 'FULL' },
      withdrawal: { store: 'FULL', bus: 'FULL' },
      identity: { store: 'NORMAL', bus: 'FULL' },
      kyc: { store: 'NORMAL', bus: 'FULL' },
      notification: { store: 'NORMAL', bus: 'FULL' },
      support: { store: 'NORMAL', bus: 'FULL' },
    });
  });

  it('uses Redis when REDIS_URL is set, under the service prefix', async () => {
    const rt = await createServiceRuntime('identity', {
      DATA_DIR: dir.path,
      NODE_ENV: 'test',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    expect(rt.adapters.kv).toBe('redis');
    const key = `runtime-test:${randomUUID()}`;
    await rt.kv.set(key, 'v', { ttlMs: 5_000 });
    expect(await rt.kv.get(key)).toBe('v');
    await rt.kv.del(key);
    await rt.close();
  });
});

describe('onShutdown', () => {
  it('runs the steps once, in reverse order', async () => {
    const order: string[] = [];
    const offs = [
      onShutdown(() => void order.push('first started'), { exit: false }),
      onShutdown(async () => void order.push('second started'), { exit: false }),
    ];
    expect(await Promise.all([runShutdown(), runShutdown()])).toEqual([true, true]);
    expect(order).toEqual(['second started', 'first started']);
    offs.forEach((off) => off());
  });
});
