/**
 * Test harness: the identity service started through `start()` on SQLite ':memory:', the in-process
 * bus and real Redis (random key prefix; in-memory only when no Redis answers), reached by a real
 * gRPC client. The clock is injectable (advance it for expiry tests).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { harnessPerTest } from '@meridian/platform/testing/perTest';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createLogger } from '@meridian/platform/logger';
import { MemoryPersonalDataKeys, PersonalData } from '@meridian/platform/personalData';
import { openSecret, generateSecretsKey } from '@meridian/platform/crypto';
import { createGrpcClient } from '@meridian/platform/grpc/index';
import { type Call, type RequestCodecs, codecCaller } from '@meridian/platform/testing/grpcCall';
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import type { ServiceStore } from '@meridian/platform/ports/serviceStore';
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import * as pb from '@meridian/proto/meridian/identity/v1/identity';
import { IdentityServiceClient, type AuthResponse } from '@meridian/proto/meridian/identity/v1/identity';
import { start, type IdentityDeps } from '../main.js';
import { parseIdentityConfig } from '../config.js';
import { createArgon2PasswordHasher } from '../adapters/passwordHasher.argon2.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const probes = new Map<string, Promise<boolean>>();
/** Whether a Redis answers at `url` within a second (asked once per url; says so when none does). */
export function probeRedis(url: string = REDIS_URL): Promise<boolean> {
  let probe = probes.get(url);
  if (!probe) {
    probe = (async () => {
      const kv = createRedisKeyValueStore({ url, prefix: `probe:${randomUUID()}:` });
      try {
        await Promise.race([
          kv.get('x'),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 1_000)),
        ]);
        return true;
      } catch {
        process.stdout.write(`identity tests: no Redis at ${url}; using the in-memory KeyValueStore\n`);
        return false;
      } finally {
        await kv.close().catch(() => undefined);
      }
    })();
    probes.set(url, probe);
  }
  return probe;
}

const REQUESTS: RequestCodecs<IdentityServiceClient> = {
  register: pb.RegisterRequest,
  login: pb.LoginRequest,
  sendLoginCode: pb.SendLoginCodeRequest,
  loginWithCode: pb.LoginWithCodeRequest,
  googleLogin: pb.GoogleLoginRequest,
  externalLogin: pb.ExternalLoginRequest,
  authenticate: pb.AuthenticateRequest,
  logout: pb.LogoutRequest,
  getUser: pb.GetUserRequest,
  updateUser: pb.UpdateUserRequest,
  sendVerificationEmail: pb.SendVerificationEmailRequest,
  verifyUser: pb.VerifyUserRequest,
  changePassword: pb.ChangePasswordRequest,
  forgotPassword: pb.ForgotPasswordRequest,
  resetPassword: pb.ResetPasswordRequest,
  listUsers: pb.ListUsersRequest,
  getUserStats: pb.GetUserStatsRequest,
  deleteUser: pb.DeleteUserRequest,
  upgradeUser: pb.UpgradeUserRequest,
  impersonate: pb.ImpersonateRequest,
  exitImpersonation: pb.ExitImpersonationRequest,
  listReferrals: pb.ListReferralsRequest,
  listCountries: pb.ListCountriesRequest,
  getPersonalDataKeys: pb.GetPersonalDataKeysRequest,
};

export interface Harness {
  client: IdentityServiceClient;
  /** Calls an RPC; missing request fields take their proto defaults. */
  call: Call<IdentityServiceClient>;
  store: ServiceStore;
  bus: ReturnType<typeof createInProcEventBus>;
  kv: KeyValueStore;
  /** The service's personal data (keys in memory): open what its events and views hold sealed. */
  personalData: PersonalData;
  /** `data` with its sealed personal values opened (top-level strings). */
  opened<T extends object>(data: T): Promise<T>;
  secretsKey: string;
  admin: { email: string; password: string };
  /** Current fake time; advance(ms) moves it. */
  now(): Date;
  advance(ms: number): void;
  events(type?: string): Promise<StoredEvent[]>;
  /** Opens the sealed secret of the newest event of `type` for `email`. */
  latestSecret(
    type: 'EmailVerificationRequested' | 'PasswordResetRequested' | 'LoginCodeRequested',
    email: string,
  ): Promise<string>;
  register(
    overrides?: Partial<{
      name: string;
      email: string;
      password: string;
      phone: string;
      country: string;
      referralCode: string;
    }>,
  ): Promise<AuthResponse & { email: string; password: string }>;
  /** Signs in from a new browser with an emailed code (for accounts without a trusted device). */
  signInWithCode(email: string, deviceToken?: string): Promise<AuthResponse>;
  /** Logs in with the account's password from a browser it trusts (by default the one it registered from). */
  loginTrusted(
    account: { email: string; password: string; deviceToken: string },
    deviceToken?: string,
  ): Promise<AuthResponse>;
  callerOf(sessionToken: string): Promise<Caller>;
  /** The first admin (ADMIN_EMAIL) signed in from a new browser with an emailed code: their caller. */
  adminCaller(): Promise<Caller>;
  /** Stops the service (gRPC, relay, consumers) and leaves the store and the bus open. */
  stopService(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

export async function startHarness(
  options: { env?: Record<string, string>; deps?: Partial<IdentityDeps> } = {},
): Promise<Harness> {
  let nowMs = Date.parse('2026-03-01T12:00:00.000Z');
  const clock = () => new Date(nowMs);
  const store = createSqliteServiceStore(':memory:', { clock });
  const bus = createInProcEventBus({ path: ':memory:' });
  const prefix = `test:identity:${randomUUID()}:`;
  const redis = (await probeRedis()) ? createRedisKeyValueStore({ url: REDIS_URL, prefix }) : null;
  const kv: KeyValueStore = redis ?? createMemoryKeyValueStore({ now: () => nowMs });
  const secretsKey = generateSecretsKey();
  const admin = { email: `admin-${randomUUID().slice(0, 8)}@meridian.test`, password: 'Admin-pass-1' };
  const config = parseIdentityConfig({
    NODE_ENV: 'test',
    IDENTITY_GRPC_ADDR: '127.0.0.1:0',
    JWT_SECRET: randomBytes(32).toString('hex'),
    SECRETS_KEY: secretsKey,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    APP_URL: 'http://localhost:8080',
    ...options.env,
  });
  const personalData = new PersonalData(new MemoryPersonalDataKeys());
  const deps: IdentityDeps = {
    personalData,
    config,
    store,
    bus,
    kv,
    logger: createLogger('identity', { level: 'silent' }),
    clock,
    passwordHasher: createArgon2PasswordHasher({ memoryCost: 4096, timeCost: 1 }),
    ...options.deps,
  };
  let service = await start(deps);
  let client = createGrpcClient(IdentityServiceClient, service.grpcAddress);

  const h: Harness = {
    get client() {
      return client;
    },
    // the client of the service as it runs now (a restart opens a new one)
    call: (method, request) => codecCaller(client, REQUESTS)(method, request),
    store,
    bus,
    kv,
    personalData,
    async opened(data) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(data))
        out[k] = typeof v === 'string' ? await personalData.open(v) : v;
      return out as typeof data;
    },
    secretsKey,
    admin,
    now: clock,
    advance(ms) {
      nowMs += ms;
    },
    async events(type) {
      const all = await store.readAll(0, 100_000);
      return type ? all.filter((e) => e.type === type) : all;
    },
    async latestSecret(type, email) {
      const list: StoredEvent[] = [];
      for (const e of await h.events(type))
        if ((await personalData.open((e.data as { email: string }).email)) === email.toLowerCase())
          list.push(e);
      const last = list.at(-1);
      if (!last) throw new Error(`no ${type} for ${email}`);
      const data = last.data as { sealedToken?: string; sealedCode?: string };
      return openSecret(data.sealedToken ?? data.sealedCode ?? '', secretsKey);
    },
    async register(overrides = {}) {
      const email = overrides.email ?? `user-${randomUUID().slice(0, 8)}@example.com`;
      const password = overrides.password ?? 'Secret-pass-1';
      const res = await h.call('register', {
        name: overrides.name ?? 'Test User',
        email,
        password,
        phone: overrides.phone ?? '+254700000000',
        country: overrides.country ?? 'Kenya',
        referralCode: overrides.referralCode ?? '',
      });
      return { ...res, email, password };
    },
    async signInWithCode(email, deviceToken = '') {
      await h.call('sendLoginCode', { email });
      const code = await h.latestSecret('LoginCodeRequested', email);
      return h.call('loginWithCode', { email, loginCode: code, deviceToken });
    },
    loginTrusted: (account, deviceToken = account.deviceToken) =>
      h.call('login', { email: account.email, password: account.password, deviceToken }),
    adminCaller: async () => h.callerOf((await h.signInWithCode(h.admin.email)).sessionToken),
    async callerOf(sessionToken) {
      const p = await h.call('authenticate', { sessionToken });
      return {
        userId: p.userId,
        sessionId: p.sessionId,
        impersonatorId: p.impersonatorId,
        correlationId: '',
      };
    },
    async stopService() {
      client.close();
      await service.stop();
    },
    async stop() {
      await h.stopService();
      await bus.close();
      await store.close();
      if (redis) {
        // leave nothing behind under this test's prefix
        const keys = await redis.client.keys(`${prefix}*`);
        if (keys.length) await redis.client.del(...keys);
      }
      await kv.close();
    },
    async restart() {
      client.close();
      await service.stop();
      service = await start(deps);
      client = createGrpcClient(IdentityServiceClient, service.grpcAddress);
    },
  };
  return h;
}

/**
 * The setup of an integration spec: a fresh identity service before each test, stopped after it. The
 * harness returned stands for the current test's.
 */
export function identityPerTest(options: Parameters<typeof startHarness>[0] = {}): Harness {
  return harnessPerTest(
    'the identity harness',
    () => startHarness(options),
    (h) => h.stop(),
  );
}
