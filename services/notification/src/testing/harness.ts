/**
 * Test harness: the notification service started through `start()` on SQLite ':memory:' and the
 * in-process bus (or a store and bus shared across restarts), reached by a real gRPC client, with the
 * events it publishes on meridian.notification.events collected; and the other services' events as
 * their relays publish them.
 */
import { randomUUID } from 'node:crypto';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { generateSecretsKey, sealSecret } from '@meridian/platform/crypto';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { callUnary, createGrpcClient } from '@meridian/platform/grpc/index';
import { createLogger } from '@meridian/platform/logger';
import { topicOf } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import {
  NotificationServiceClient,
  type MailboxMessage,
} from '@meridian/proto/meridian/notification/v1/notification';
import { parseNotificationConfig } from '../config.js';
import { start, type NotificationHandle } from '../main.js';

export const APP_URL = 'http://app.meridian.test:8080';
const logger = createLogger('notification', { level: 'silent' });

export type HarnessBus = ReturnType<typeof createInProcEventBus>;

/** A store, a bus, a secrets key and personal-data keys: what a notification instance runs on, and outlives it when shared. */
export interface Adapters {
  store: ServiceStore;
  bus: HarnessBus;
  key: string;
  /** Keys in memory: `shred(userId)` is what deleting the user does to the key. */
  personalData: PersonalData;
}

export function createAdapters(): Adapters & { close(): Promise<void> } {
  const store = createSqliteServiceStore(':memory:');
  const bus = createInProcEventBus({ path: ':memory:' });
  return {
    store,
    bus,
    key: generateSecretsKey(),
    personalData: new PersonalData(new MemoryPersonalDataKeys()),
    async close() {
      await bus.close();
      await store.close();
    },
  };
}

export interface NotificationHarness extends Adapters {
  handle: NotificationHandle;
  client: InstanceType<typeof NotificationServiceClient>;
  /** Events published on meridian.notification.events. */
  outEvents: StoredEvent[];
  /** The mailbox of `to`, newest first (ListMailbox). */
  mailbox(to: string): Promise<MailboxMessage[]>;
  /** Stops the service; the adapters stay open. */
  stop(): Promise<void>;
  /** Stops the service and closes the adapters it created (never shared ones). */
  close(): Promise<void>;
}

export async function startNotificationHarness(
  env: Record<string, string> = {},
  shared?: Adapters,
): Promise<NotificationHarness> {
  const own = shared ? null : createAdapters();
  const { store, bus, key, personalData } = shared ?? own!;
  const config = parseNotificationConfig({
    NODE_ENV: 'test',
    NOTIFICATION_GRPC_ADDR: '127.0.0.1:0',
    APP_URL,
    SECRETS_KEY: key,
    EMAIL_RETRY_BASE_MS: '20',
    EMAIL_RETRY_MAX_MS: '200',
    ...env,
  });
  const handle = await start({ config, store, bus, logger, personalData });
  const client = createGrpcClient(NotificationServiceClient, handle.grpcAddress);
  const outEvents: StoredEvent[] = [];
  const sub = await bus.subscribe({
    topic: topicOf('notification'),
    group: `test-${randomUUID()}`,
    handler: async (e) => void outEvents.push(e),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    client.close();
    await sub.stop();
    await handle.stop();
  };
  return {
    handle,
    client,
    store,
    bus,
    key,
    personalData,
    outEvents,
    mailbox: async (to) => (await callUnary(client, 'listMailbox', { to })).messages,
    stop,
    async close() {
      await stop();
      await own?.close();
    },
  };
}

/** A user as identity's events name them (a fresh id and a mixed-case address). */
export const user = () => {
  const id = randomUUID().slice(0, 8);
  return { userId: `u-${id}`, email: `Ada.${id}@Example.com`, name: 'Ada Lovelace' };
};

/** An identity event as identity's relay publishes it (stream user-<userId>). */
export const identityEvent = (
  type: string,
  data: Record<string, unknown>,
  id = randomUUID(),
): StoredEvent => ({
  ...busEvent(`user-${String(data.userId)}`, 1, data, type),
  id,
});

/** Identity's request for an email that carries a secret (a link token or a login code), sealed with `key`. */
export const sealedRequest = (
  type: 'EmailVerificationRequested' | 'PasswordResetRequested' | 'LoginCodeRequested',
  u: ReturnType<typeof user>,
  secret: string,
  key: string,
  expiresAt = '',
): StoredEvent =>
  identityEvent(type, {
    ...u,
    [type === 'LoginCodeRequested' ? 'sealedCode' : 'sealedToken']: sealSecret(secret, key),
    expiresAt,
  });
