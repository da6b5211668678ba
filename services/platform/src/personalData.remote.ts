/**
 * `PersonalDataKeys` of a service that runs in its own process: the keys live in identity's vault and are
 * fetched through identity's internal gRPC `GetPersonalDataKeys` (callable only with the shared service
 * token). Concurrent look-ups are batched into one call; `PersonalData` keeps the keys it got in memory
 * (and drops one on `forget`, when UserDeleted is heard).
 *
 * find = fetch (null when identity has no key: never created, or destroyed with the user);
 * findOrCreate = fetch, and fail with UserKeyDestroyedError when absent (only identity creates keys, at
 * registration; identity never creates one again for a deleted user, whose id it keeps as a tombstone),
 * except for a support visitor (`visitor-<uuid>`): identity makes the visitor's key on request;
 * destroy = nothing for a user (identity destroys keys when it deletes the user); a visitor's key is
 * destroyed on request.
 *
 * identity out of reach (UNAVAILABLE, DEADLINE_EXCEEDED) is an `unavailable` DomainError: the call that needed
 * the key answers UNAVAILABLE (503 at the gateway), an outcome its caller retries with its key, never INTERNAL.
 */
import * as grpc from '@grpc/grpc-js';
import { IdentityServiceClient } from '@meridian/proto/meridian/identity/v1/identity';
import { unavailable } from './eventSourcing/errors.js';
import { callUnary, createGrpcClient } from './grpc/client.js';
import { UNAVAILABLE_MESSAGE } from './grpc/status.js';
import { SERVICE_TOKEN_METADATA, UserKeyDestroyedError, type PersonalDataKeys } from './personalData.js';

export interface RemotePersonalDataKeysOptions {
  /** identity's gRPC target (IDENTITY_GRPC_URL). */
  target: string;
  /** INTERNAL_SERVICE_TOKEN (sent as x-service-token). */
  token: string;
  /** Per call, default 5000 ms. */
  deadlineMs?: number;
}

/** A support visitor's id (someone who wrote to support without an account): `visitor-<uuid>`. */
const isVisitorId = (id: string) => /^visitor-[A-Za-z0-9-]{1,100}$/.test(id);

export class RemotePersonalDataKeys implements PersonalDataKeys {
  private readonly client: IdentityServiceClient;
  private readonly metadata = new grpc.Metadata();
  private pending: Map<
    string,
    Array<{ resolve: (k: Buffer | null) => void; reject: (e: unknown) => void }>
  > | null = null;

  constructor(private readonly options: RemotePersonalDataKeysOptions) {
    this.client = createGrpcClient(IdentityServiceClient, options.target);
    this.metadata.set(SERVICE_TOKEN_METADATA, options.token);
  }

  find(userId: string): Promise<Buffer | null> {
    return new Promise((resolve, reject) => {
      if (!this.pending) {
        this.pending = new Map();
        queueMicrotask(() => void this.flush());
      }
      const waiters = this.pending.get(userId) ?? [];
      waiters.push({ resolve, reject });
      this.pending.set(userId, waiters);
    });
  }

  async findOrCreate(userId: string): Promise<Buffer> {
    const key = isVisitorId(userId) ? await this.visitorKey(userId) : await this.find(userId);
    // no key: a deleted user (or one identity never registered): nothing is written for them
    if (!key) throw new UserKeyDestroyedError(userId);
    return key;
  }

  async destroy(userId: string): Promise<void> {
    // identity destroys a user's key with the user; nothing is kept here but PersonalData's cache
    if (!isVisitorId(userId)) return;
    await this.keys({ userIds: [], createVisitorIds: [], destroyVisitorIds: [userId] });
  }

  /** A support visitor's key, made by identity when missing (null: destroyed). */
  private async visitorKey(visitorId: string): Promise<Buffer | null> {
    const res = await this.keys({ userIds: [], createVisitorIds: [visitorId], destroyVisitorIds: [] });
    const found = res.keys.find((k) => k.userId === visitorId);
    return found ? Buffer.from(found.key) : null;
  }

  close(): void {
    this.client.close();
  }

  /** identity's GetPersonalDataKeys; identity out of reach is `unavailable`. */
  private async keys(request: {
    userIds: string[];
    createVisitorIds: string[];
    destroyVisitorIds: string[];
  }) {
    try {
      return await callUnary(this.client, 'getPersonalDataKeys', request, {
        metadata: this.metadata,
        deadlineMs: this.options.deadlineMs ?? 5_000,
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED)
        throw unavailable(UNAVAILABLE_MESSAGE);
      throw err;
    }
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = null;
    if (!batch) return;
    try {
      const res = await this.keys({
        userIds: [...batch.keys()],
        createVisitorIds: [],
        destroyVisitorIds: [],
      });
      const found = new Map(res.keys.map((k) => [k.userId, Buffer.from(k.key)]));
      for (const [userId, waiters] of batch) {
        const key = found.get(userId) ?? null;
        for (const w of waiters) w.resolve(key);
      }
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }
}
