/**
 * Crashes and redeliveries: the outbox never loses an event and idempotent consumers never apply one
 * twice. The ledger runs on a SQLite FILE and a file-backed in-process bus, so a "restart" re-opens
 * both as a new process would.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { subscribeIdempotent } from '@meridian/platform/app/consumer';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { topicOf, type EventBus, type Subscription } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { BalancesChanged, DepositConfirmed } from '@meridian/proto/meridian/ledger/v1/events';
import { expectLedgerInvariants } from './testing/invariants.js';
import { startLedgerHarness, type LedgerHarness } from './testing/harness.js';

const LEDGER_TOPIC = topicOf('ledger');

/**
 * A downstream consumer as identity would build one: counts the DepositConfirmed it applied and keeps
 * the newest balances per user, each effect recorded with its processed marker (subscribeIdempotent).
 */
async function startMirror(
  bus: EventBus,
): Promise<{ store: ServiceStore; sub: Subscription; deliveries: Map<string, number>; seen: StoredEvent[] }> {
  const store = createSqliteServiceStore(':memory:');
  const deliveries = new Map<string, number>();
  const seen: StoredEvent[] = [];
  const sub = await subscribeIdempotent({
    bus,
    store,
    topic: LEDGER_TOPIC,
    group: 'test-mirror',
    handle: async (event: StoredEvent, tx) => {
      if (event.type === 'DepositConfirmed') {
        const data = event.data as DepositConfirmed;
        const doc = await tx.get<{ applied: number }>('confirmed', data.depositId);
        await tx.put('confirmed', data.depositId, { applied: (doc?.applied ?? 0) + 1 });
      }
      if (event.type === 'BalancesChanged') {
        const data = event.data as BalancesChanged;
        const doc = await tx.get<{ version: number }>('balances', data.userId);
        if (!doc || doc.version < event.version)
          await tx.put('balances', data.userId, { ...data, version: event.version });
      }
    },
  });
  // every delivery attempt, duplicates included (a second group on the same topic)
  const counter = await bus.subscribe({
    topic: LEDGER_TOPIC,
    group: 'test-deliveries',
    handler: async (event) => {
      deliveries.set(event.id, (deliveries.get(event.id) ?? 0) + 1);
      seen.push(event);
    },
  });
  return {
    store,
    deliveries,
    seen,
    sub: { stop: async () => (await sub.stop(), await counter.stop(), await store.close()) },
  };
}

let dir: ReturnType<typeof tempDir>;
let h: LedgerHarness | undefined;
beforeEach(() => {
  dir = tempDir('meridian-ledger-');
});
afterEach(async () => {
  if (h) {
    await h.checkInvariants();
    await h.stop();
    h = undefined;
  }
  dir.remove();
});

type Crash = 'before publish' | 'after publish, before checkpoint';

/** A bus that dies around publish the way a crashing process would. */
function crashingBus(bus: EventBus, when: Crash, crashed: () => void): EventBus {
  return {
    subscribe: (o) => bus.subscribe(o),
    close: async () => undefined,
    async publish(topic, events) {
      if (when === 'after publish, before checkpoint') await bus.publish(topic, events);
      crashed();
      throw new Error('process killed');
    },
  };
}

describe.each<Crash>(['before publish', 'after publish, before checkpoint'])(
  'the process dies %s',
  (when) => {
    it('after restart on the same files the confirmation is published and applied exactly once', async () => {
      const storePath = join(dir.path, 'ledger.sqlite');
      const busPath = join(dir.path, 'bus.sqlite');
      let crashes = 0;
      const first = await startLedgerHarness({
        storePath,
        busPath,
        wrapBus: (bus) => crashingBus(bus, when, () => crashes++),
      });
      const investor = await first.user();
      const deposit = await first.fund(investor, '75');
      expect(deposit.status).toBe('Confirmed');
      await waitFor(() => crashes > 0, 'the relay tried to publish');
      await first.stop(); // the "process" is gone: store and bus files closed

      h = await startLedgerHarness({ storePath, busPath });
      const mirror = await startMirror(h.bus);
      try {
        await h.settle();
        const applied = await waitFor(
          async () => (await mirror.store.get<{ applied: number }>('confirmed', deposit.depositId))?.applied,
        );
        await waitFor(
          () =>
            mirror.deliveries.size > 0 &&
            h!.bus.committed('test-mirror', LEDGER_TOPIC) === h!.bus.size(LEDGER_TOPIC),
        );
        expect(applied).toBe(1);
        const confirmedIds = [...mirror.deliveries.keys()];
        expect(confirmedIds.length).toBeGreaterThan(0);
        if (when === 'after publish, before checkpoint')
          expect(Math.max(...mirror.deliveries.values())).toBeGreaterThanOrEqual(2); // redelivered
        expect(await mirror.store.get('balances', investor.userId)).toMatchObject({ depositCents: 7500 });
        // nothing moved twice in the ledger either
        expect(await h.balances(investor.userId)).toMatchObject({ depositCents: 7500 });
        await expectLedgerInvariants(h.store);
      } finally {
        await mirror.sub.stop();
      }
    });
  },
);

describe('duplicate delivery', () => {
  it('a consumer receiving the same ledger event twice applies it once', async () => {
    h = await startLedgerHarness({ busPath: join(dir.path, 'bus.sqlite') });
    const mirror = await startMirror(h.bus);
    try {
      const investor = await h.user();
      const deposit = await h.fund(investor, '12.34');
      await h.settle();
      const published = await waitFor(
        () => mirror.seen.find((e) => e.type === 'DepositConfirmed'),
        'DepositConfirmed published',
      );
      await h.bus.publish(LEDGER_TOPIC, [published]); // the broker delivers it again
      await waitFor(() => (mirror.deliveries.get(published.id) ?? 0) >= 2, 'the duplicate was delivered');
      await waitFor(() => h!.bus.committed('test-mirror', LEDGER_TOPIC) === h!.bus.size(LEDGER_TOPIC));
      expect(await mirror.store.get('confirmed', deposit.depositId)).toEqual({ applied: 1 });
      expect(await mirror.store.get('balances', investor.userId)).toMatchObject({ depositCents: 1234 });
    } finally {
      await mirror.sub.stop();
    }
  });
});
