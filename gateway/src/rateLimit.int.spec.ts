/**
 * Rate limits of the sign-in surface, kept in Redis (the KeyValueStore) under the test's random prefix:
 * login, register, sendLoginCode, loginWithCode, forgotPassword, resetPassword -> 429 with Retry-After.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freshEmail,
  HttpSession,
  REDIS_URL,
  startTestComposition,
  type TestComposition,
} from './testing/composition.js';

const MAX = 3;
let t: TestComposition;

beforeAll(async () => {
  const rule = { max: MAX, windowMs: 60_000 };
  t = await startTestComposition({
    gateway: {
      rateLimits: {
        login: rule,
        register: rule,
        sendLoginCode: rule,
        loginWithCode: rule,
        forgotPassword: rule,
        resetPassword: rule,
        google: rule,
      },
    },
  });
});

afterAll(async () => {
  await t?.stop();
});

const routes: Array<[string, (b: HttpSession) => Promise<{ status: number; body: any; headers: Headers }>]> =
  [
    ['POST login', (b) => b.post('/api/users/login', { email: freshEmail(), password: 'Passw0rd!' })],
    [
      'POST register',
      (b) =>
        b.post('/api/users/register', {
          name: 'R',
          email: 'bad-email',
          password: 'Passw0rd!',
          phone: '1',
          country: 'DE',
        }),
    ],
    ['POST sendLoginCode/{email}', (b) => b.post(`/api/users/sendLoginCode/${freshEmail()}`)],
    [
      'POST loginWithCode/{email}',
      (b) => b.post(`/api/users/loginWithCode/${freshEmail()}`, { loginCode: '123456' }),
    ],
    ['POST forgotPassword', (b) => b.post('/api/users/forgotPassword', { email: freshEmail() })],
    [
      'PATCH resetPassword/{token}',
      (b) => b.patch('/api/users/resetPassword/not-a-token', { password: 'Passw0rd!' }),
    ],
  ];

describe.each(routes)('%s', (_name, call) => {
  it(`allows ${MAX} requests per window, then answers 429 with Retry-After`, async () => {
    const b = new HttpSession(t.url);
    for (let i = 0; i < MAX; i++) expect((await call(b)).status).not.toBe(429);
    const limited = await call(b);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too many requests, please try again later.' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});

describe('where the counters live', () => {
  it('in Redis, under the gateway prefix, expiring with the window', async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${t.redisPrefix}gateway:rl:*`);
      expect(keys.length).toBeGreaterThan(0);
      const ttl = await redis.pttl(keys[0]);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      redis.disconnect();
    }
  });

  it('unlimited routes are unaffected', async () => {
    const b = new HttpSession(t.url);
    for (let i = 0; i < MAX + 2; i++) expect((await b.get('/api/users/loginStatus')).status).toBe(200);
  });
});
