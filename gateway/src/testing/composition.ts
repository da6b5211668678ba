/**
 * Test composition: the standalone target in-process (SQLite ':memory:', one in-process bus, real
 * Redis under a random key prefix) plus helpers that act like browsers. Used by the gateway's REST
 * contract tests.
 */
import { randomUUID } from 'node:crypto';
import { startStandalone, type Standalone, type StandaloneOptions } from '@meridian/standalone';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import { DEV_KYC_INTERNAL_TOKEN, parseGatewayConfig, type GatewayConfig } from '../config.js';
import { DEVICE_COOKIE } from '../http/cookies.js';
import { startGateway, type RunningGateway } from '../server.js';
import { HttpSession, linkWith, listMail, loginCodeOf, mailsWith, waitForMail } from './httpSession.js';
import { deleteRedisKeys } from './redisKeys.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const ADMIN_EMAIL = 'admin@meridian.test';
export const ADMIN_PASSWORD = 'Admin-Passw0rd!';

export interface TestComposition {
  app: Standalone;
  url: string;
  /** The Redis the composition uses (options.env.REDIS_URL, else REDIS_URL) and its key prefix there. */
  redisUrl: string;
  redisPrefix: string;
  browser(): HttpSession;
  stop(): Promise<void>;
}

/** Rate limits no test reaches (the gateway's own, per route). */
export const generousGatewayLimits = Object.fromEntries(
  [
    'login',
    'register',
    'sendLoginCode',
    'loginWithCode',
    'forgotPassword',
    'resetPassword',
    'google',
    'oidc',
    'kycUpload',
    'supportVisitorStart',
    'supportVisitorMessage',
    'supportAttachment',
  ].map((k) => [k, { max: 10_000, windowMs: 60_000 }]),
);

const generousIdentityLimits = Object.fromEntries(
  [
    'loginPerEmail',
    'loginPerClient',
    'sendCodePerEmail',
    'sendCodePerClient',
    'codeLoginPerClient',
    'registerPerEmail',
    'registerPerClient',
    'forgotPerEmail',
    'forgotPerClient',
    'verificationPerUser',
  ].map((k) => [k, { max: 10_000, windowMs: 60_000 }]),
);

export async function startTestComposition(
  options: {
    gateway?: Partial<GatewayConfig>;
    env?: Record<string, string>;
    identity?: StandaloneOptions['identity'];
    /** Where the SQLite files and the in-process bus live (default ':memory:'; a folder lets a second gateway share the bus). */
    dataDir?: string;
  } = {},
): Promise<TestComposition> {
  const redisPrefix = `test:${randomUUID()}:`;
  const redisUrl = options.env?.REDIS_URL ?? REDIS_URL;
  const app = await startStandalone({
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PORT: '0',
      REDIS_URL,
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      WEB_DIST: '/nonexistent-web-dist',
      // the per-user caps on pending requests lifted: a test's investor files many (each service's
      // pendingCount.int.spec.ts tests the caps)
      LEDGER_MAX_PENDING_DEPOSITS: '1000000',
      INVESTMENT_MAX_PENDING: '1000000',
      WITHDRAWAL_MAX_PENDING: '1000000',
      ...options.env,
    },
    dataDir: options.dataDir ?? ':memory:',
    redisPrefix,
    identity: { rateLimits: generousIdentityLimits as never, ...options.identity },
    gateway: {
      rateLimits: generousGatewayLimits,
      ...options.gateway,
    },
  });
  return {
    app,
    url: app.url,
    redisUrl,
    redisPrefix,
    browser: () => new HttpSession(app.url),
    async stop() {
      await app.stop();
      await deleteRedisKeys(redisUrl, redisPrefix);
    },
  };
}

let seq = 0;
/** The addresses of the composition's services, as a gateway's configuration names them. */
const serviceUrlsOf = (t: TestComposition, money: boolean) => ({
  identityGrpcUrl: t.app.identityAddress,
  notificationGrpcUrl: t.app.notificationAddress,
  kycGrpcUrl: t.app.kycAddress,
  kycHttpUrl: t.app.kycHttpUrl,
  ...(money
    ? {
        ledgerGrpcUrl: t.app.money.ledger.grpcAddress,
        investmentGrpcUrl: t.app.money.investment.grpcAddress,
        withdrawalGrpcUrl: t.app.money.withdrawal.grpcAddress,
      }
    : {}),
});

/**
 * A gateway's configuration on the composition's services (identity, notification, kyc; the money services
 * with `money`), with the test defaults a gateway beside the composition runs with, and `over` on top.
 */
export const gatewayConfigFor = (
  t: TestComposition,
  over: Partial<GatewayConfig> = {},
  money = false,
): GatewayConfig => ({
  nodeEnv: 'test',
  port: 0,
  webDist: '/nonexistent-web-dist',
  appUrl: 'http://localhost:8080',
  cookieSecure: false,
  trustProxy: 'loopback',
  kycInternalToken: DEV_KYC_INTERNAL_TOKEN,
  dataDir: ':memory:',
  ...serviceUrlsOf(t, money),
  ...over,
});

/**
 * Another gateway instance like the composition's own: the same bus file (`dataDir`), Redis namespace,
 * services and personal-data keys (the cluster's gateways fetch those from identity). `config` overrides
 * (a relay in front of a service, a live ring of its own). Its stop() runs once and closes its Redis.
 */
export async function startGatewayInstance(
  t: TestComposition,
  dataDir: string,
  config: Partial<GatewayConfig> = {},
): Promise<RunningGateway> {
  const kv = createRedisKeyValueStore({ url: t.redisUrl, prefix: `${t.redisPrefix}gateway:` });
  const gw = await startGateway({
    config: {
      ...parseGatewayConfig({
        NODE_ENV: 'test',
        PORT: '0',
        REDIS_URL: t.redisUrl,
        WEB_DIST: '/nonexistent-web-dist',
        DATA_DIR: dataDir,
      }),
      ...serviceUrlsOf(t, true),
      supportGrpcUrl: t.app.supportAddress,
      rateLimits: generousGatewayLimits,
      liveKeyPrefix: `${t.redisPrefix}gateway:live:`,
      socketChannel: `${t.redisPrefix}socket.io`,
      liveStandbyRetryMs: 50,
      ...config,
    },
    kv,
    personalData: t.app.personalData,
    host: '127.0.0.1',
  });
  const stop = gw.stop.bind(gw);
  let stopped: Promise<void> | undefined;
  gw.stop = () =>
    (stopped ??= (async () => {
      await stop();
      await kv.close();
    })());
  return gw;
}

export const freshEmail = (tag = 'user') =>
  `${tag}.${Date.now().toString(36)}.${(seq++).toString(36)}.${randomUUID().slice(0, 6)}@example.com`;

export interface Account {
  email: string;
  password: string;
  id: string;
  browser: HttpSession;
}

/** Registers a fresh user in a fresh browser (which becomes trusted and logged in). */
export async function registerUser(
  url: string,
  overrides: Partial<{ name: string; email: string; password: string; referralCode: string }> = {},
): Promise<Account> {
  const browser = new HttpSession(url);
  const email = overrides.email ?? freshEmail();
  const password = overrides.password ?? 'Passw0rd!';
  const res = await browser.post('/api/users/register', {
    name: overrides.name ?? 'Test User',
    email,
    password,
    phone: '+15550100',
    country: 'Germany',
    ...(overrides.referralCode ? { referralCode: overrides.referralCode } : {}),
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { email, password, id: res.body._id as string, browser };
}

/** A registered user who followed the verification link registration emailed. */
export async function verifiedUser(
  url: string,
  overrides: Parameters<typeof registerUser>[1] = {},
): Promise<Account> {
  const account = await registerUser(url, overrides);
  const mail = await waitForMail(url, account.email, (m) => m.links.some((l) => l.includes('/verify/')));
  const { token } = linkWith(mail, '/verify/');
  const res = await account.browser.patch(`/api/users/verifyUser/${token}`);
  if (res.status !== 200) throw new Error(`verifyUser failed: ${res.status} ${JSON.stringify(res.body)}`);
  return account;
}

/** Signs in from `browser`, passing the new-browser login-code step through the dev mailbox when asked. */
export async function signIn(browser: HttpSession, email: string, password: string): Promise<void> {
  const first = await browser.post('/api/users/login', { email, password });
  if (first.status === 200) return;
  if (first.status !== 400 || !String(first.body?.message).includes('New browser')) {
    throw new Error(`login failed: ${first.status} ${JSON.stringify(first.body)}`);
  }
  const known = new Set((await listMail(browser.baseUrl, email)).map((m) => m.id));
  const sent = await browser.post(`/api/users/sendLoginCode/${encodeURIComponent(email)}`);
  if (sent.status !== 200)
    throw new Error(`sendLoginCode failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const mail = await waitForMail(browser.baseUrl, email, (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text));
  const res = await browser.post(`/api/users/loginWithCode/${encodeURIComponent(email)}`, {
    loginCode: loginCodeOf(mail),
  });
  if (res.status !== 200) throw new Error(`loginWithCode failed: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function adminBrowser(url: string): Promise<HttpSession> {
  const browser = new HttpSession(url);
  await signIn(browser, ADMIN_EMAIL, ADMIN_PASSWORD);
  return browser;
}

/**
 * The same browser on another target (a restored or migrated store, another gateway): a fresh session with
 * only `before`'s trusted-device cookie, signed in with the password alone (the device is known there, so no
 * emailed code).
 */
export async function returningBrowser(
  url: string,
  before: HttpSession,
  email: string,
  password: string,
): Promise<HttpSession> {
  const browser = new HttpSession(url);
  const device = before.cookie(DEVICE_COOKIE);
  if (device !== undefined) browser.cookies.set(DEVICE_COOKIE, device);
  const res = await browser.post('/api/users/login', { email, password });
  if (res.status !== 200)
    throw new Error(`${email}: login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return browser;
}

/** A registered user whose role the admin set. */
export async function userWithRole(
  url: string,
  admin: HttpSession,
  role: 'subscriber' | 'author' | 'admin' | 'suspended',
): Promise<Account> {
  const account = await registerUser(url);
  if (role !== 'subscriber') {
    const res = await admin.post('/api/users/upgradeUser', { role, id: account.id });
    if (res.status !== 200) throw new Error(`upgradeUser failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return account;
}

export { HttpSession, linkWith, listMail, loginCodeOf, mailsWith, waitForMail };
