/**
 * Test harness: the kyc service started through `start()` on SQLite ':memory:', the in-process bus
 * and files under a fresh DATA_DIR, reached by a real gRPC client and real HTTP requests (as the
 * gateway's proxy would send them).
 */
import { randomUUID } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { expect } from 'vitest';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { createGrpcClient } from '@meridian/platform/grpc/index';
import { type Call, type RequestCodecs, codecCaller } from '@meridian/platform/testing/grpcCall';
import { createLogger } from '@meridian/platform/logger';
import { topicOf } from '@meridian/platform/ports/eventBus';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import { harnessPerTest } from '@meridian/platform/testing/perTest';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { QueueCountRequest, QueuePageRequest } from '@meridian/proto/meridian/common/v1/common';
import * as pb from '@meridian/proto/meridian/kyc/v1/kyc';
import { KycServiceClient } from '@meridian/proto/meridian/kyc/v1/kyc';
import { parseKycConfig } from '../config.js';
import { start, type KycHandle } from '../main.js';
import { SAMPLES } from './samples.js';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789abcdef';

const REQUESTS: RequestCodecs<KycServiceClient> = {
  listPending: QueuePageRequest,
  countPending: QueueCountRequest,
  approve: pb.ApproveRequest,
  reject: pb.RejectRequest,
  getStatus: pb.GetStatusRequest,
};

export interface UploadOptions {
  verified?: boolean;
  token?: string | null;
  name?: string;
  email?: string;
  /** Sent as the files' names (which must not matter). */
  filenames?: { front?: string; back?: string };
  /** The admin impersonating the user (the gateway's x-user-impersonator-id). */
  impersonatorId?: string;
}

export interface KycHarness {
  handle: KycHandle;
  store: ServiceStore;
  bus: ReturnType<typeof createInProcEventBus>;
  dataDir: string;
  /** The service's personal data (keys in memory): `shred(userId)` is what deleting the user does to the key. */
  personalData: PersonalData;
  call: Call<KycServiceClient>;
  /** Admin-side call shape: the gateway's caller + role. */
  asAdmin(adminId?: string): {
    caller: { userId: string; sessionId: string; impersonatorId: string; correlationId: string };
    callerRole: string;
  };
  upload(
    userId: string | null,
    files: { front?: Uint8Array; back?: Uint8Array },
    options?: UploadOptions,
  ): Promise<{ status: number; body: { message: string } }>;
  /** The user's case (default a new user's) submitted, a PNG front and a PDF back as Ada Lovelace, and accepted; resolves to the user's id. */
  submitCase(userId?: string): Promise<string>;
  getDocument(
    ownerId: string,
    side: string,
    as: { userId?: string; role?: string; token?: string | null },
  ): Promise<Response>;
  /** Publishes identity integration events as identity's relay would. */
  publishIdentity(events: Array<{ type: string; data: unknown; id?: string }>): Promise<StoredEvent[]>;
  publishStored(events: StoredEvent[]): Promise<void>;
  /** Resolves when the kyc consumer group has committed everything on the identity topic. */
  identityConsumed(): boolean;
  /** Integration events seen on meridian.kyc.events. */
  kycEvents: StoredEvent[];
  stop(): Promise<void>;
}

/** A fresh harness (startKycHarness) for each test, stopped after it. */
export const kycHarnessPerTest = () =>
  harnessPerTest(
    'the kyc harness',
    () => startKycHarness(),
    (h) => h.stop(),
  );

export async function startKycHarness(
  options: { maxFileBytes?: number; personalData?: PersonalData } = {},
): Promise<KycHarness> {
  const dir = tempDir('meridian-kyc-');
  const store = createSqliteServiceStore(':memory:');
  const bus = createInProcEventBus({ path: ':memory:', retryBaseMs: 10, retryMaxMs: 50 });
  const logger = createLogger('kyc', { level: 'silent' });
  const config = parseKycConfig({
    NODE_ENV: 'test',
    DATA_DIR: dir.path,
    KYC_GRPC_ADDR: '127.0.0.1:0',
    KYC_HTTP_ADDR: '127.0.0.1:0',
    KYC_INTERNAL_TOKEN: INTERNAL_TOKEN,
  });
  const personalData = options.personalData ?? new PersonalData(new MemoryPersonalDataKeys());
  const handle = await start({
    config,
    store,
    bus,
    logger,
    personalData,
    maxFileBytes: options.maxFileBytes,
  });
  const client = createGrpcClient(KycServiceClient, handle.grpcAddress);
  const kycEvents: StoredEvent[] = [];
  const watcher = await bus.subscribe({
    topic: topicOf('kyc'),
    group: `test-${randomUUID()}`,
    handler: async (e) => {
      kycEvents.push(e);
    },
  });
  let identityPosition = 0;

  const headersFor = (
    userId: string | null | undefined,
    role: string | undefined,
    token: string | null | undefined,
  ) => {
    const h: Record<string, string> = { 'x-correlation-id': randomUUID() };
    if (token !== null) h['x-internal-token'] = token ?? INTERNAL_TOKEN;
    if (userId) h['x-user-id'] = userId;
    if (role) h['x-user-role'] = role;
    return h;
  };

  const harness: KycHarness = {
    handle,
    store,
    bus,
    dataDir: dir.path,
    personalData,
    kycEvents,
    call: codecCaller(client, REQUESTS),
    asAdmin(adminId = 'admin-1') {
      return {
        caller: { userId: adminId, sessionId: 's', impersonatorId: '', correlationId: randomUUID() },
        callerRole: 'admin',
      };
    },
    async upload(userId, files, opts = {}) {
      const form = new FormData();
      if (files.front) form.append('front', new Blob([files.front]), opts.filenames?.front ?? 'front.png');
      if (files.back) form.append('back', new Blob([files.back]), opts.filenames?.back ?? 'back.png');
      const headers = headersFor(userId, 'subscriber', opts.token);
      headers['x-user-verified'] = String(opts.verified ?? true);
      if (opts.name) headers['x-user-name'] = encodeURIComponent(opts.name);
      if (opts.email) headers['x-user-email'] = encodeURIComponent(opts.email);
      if (opts.impersonatorId) headers['x-user-impersonator-id'] = opts.impersonatorId;
      const res = await fetch(`${handle.httpUrl}/upload`, { method: 'POST', body: form, headers });
      return { status: res.status, body: (await res.json()) as { message: string } };
    },
    async submitCase(userId = `user-${randomUUID()}`) {
      const res = await harness.upload(
        userId,
        { front: SAMPLES.png, back: SAMPLES.pdf },
        { name: 'Ada Lovelace', email: `${userId}@example.com` },
      );
      expect(res.status).toBe(200);
      return userId;
    },
    getDocument(ownerId, side, as) {
      return fetch(`${handle.httpUrl}/documents/${encodeURIComponent(ownerId)}/${side}`, {
        headers: headersFor(as.userId, as.role, as.token),
      });
    },
    async publishIdentity(events) {
      const stored = events.map((e): StoredEvent => {
        const userId = String((e.data as { userId?: string }).userId ?? 'x');
        const event = busEvent(`user-${userId}`, ++identityPosition, e.data, e.type);
        return e.id ? { ...event, id: e.id } : event;
      });
      await bus.publish(topicOf('identity'), stored);
      return stored;
    },
    publishStored(events) {
      return bus.publish(topicOf('identity'), events);
    },
    identityConsumed() {
      return bus.committed('kyc', topicOf('identity')) >= bus.size(topicOf('identity'));
    },
    async stop() {
      client.close();
      await watcher.stop();
      await handle.stop();
      await bus.close();
      await store.close();
      dir.remove();
    },
  };
  return harness;
}

export function isGrpcError(code: grpc.status, details?: string) {
  return (err: unknown) => {
    const e = err as grpc.ServiceError;
    return e?.code === code && (details === undefined || e.details === details);
  };
}
