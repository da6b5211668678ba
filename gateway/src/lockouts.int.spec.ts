/**
 * Nobody who only knows an address can lock its owner out (OWASP's device cookies): with the default budgets of
 * the gateway and identity, strangers at ten addresses (X-Forwarded-For through the trusted loopback proxy) send
 * 50 wrong passwords and 20 wrong login codes; the owner then signs in at once from the browser they signed in
 * with before, and from a new browser with the code mailed to them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freshEmail,
  HttpSession,
  listMail,
  loginCodeOf,
  registerUser,
  startTestComposition,
  waitForMail,
  type TestComposition,
} from './testing/composition.js';

let t: TestComposition;

beforeAll(async () => {
  // `{}`: no overrides, the defaults of both (the composition's are generous)
  t = await startTestComposition({
    gateway: { rateLimits: {}, trustProxy: 'loopback' },
    identity: { rateLimits: {} },
  });
});

afterAll(async () => {
  await t?.stop();
});

/** A code that is not `code`. */
const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

/** Asks for a login code from `browser` and reads it from the mailbox. */
async function mailedCode(browser: HttpSession, email: string): Promise<string> {
  const known = new Set((await listMail(t.url, email)).map((m) => m.id));
  const sent = await browser.post(`/api/users/sendLoginCode/${encodeURIComponent(email)}`);
  expect(sent.status).toBe(200);
  const mail = await waitForMail(t.url, email, (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text));
  return loginCodeOf(mail);
}

describe('strangers cannot lock the owner out', () => {
  it('after 50 wrong passwords and 20 wrong codes from 10 addresses the owner signs in from their known browser and, with a mailed code, from a new one', async () => {
    const owner = await registerUser(t.url, { email: freshEmail('owner') });
    const strangers = Array.from(
      { length: 10 },
      (_, i) => new HttpSession(t.url, { headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } }),
    );

    const passwordAnswers: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await strangers[i % 10]!.post('/api/users/login', {
        email: owner.email,
        password: `Wrong-pass-${i}`,
      });
      passwordAnswers.push(res.status);
    }
    // every answer a refusal; the account's budget for unknown browsers ran out on the way
    expect(passwordAnswers.every((s) => s === 400 || s === 429)).toBe(true);
    expect(passwordAnswers).toContain(429);

    // four codes mailed at strangers' request, each guessed wrong five times
    for (let round = 0; round < 4; round++) {
      const code = await mailedCode(strangers[round]!, owner.email);
      for (let k = 0; k < 5; k++) {
        const res = await strangers[(round * 5 + k) % 10]!.post(
          `/api/users/loginWithCode/${encodeURIComponent(owner.email)}`,
          { loginCode: wrongFor(code) },
        );
        expect(res.status).toBe(400);
      }
    }

    // the owner's known browser: at once
    const known = await owner.browser.post('/api/users/login', {
      email: owner.email,
      password: owner.password,
    });
    expect(known.status, JSON.stringify(known.body)).toBe(200);
    expect(known.body._id).toBe(owner.id);

    // a new browser: the freshly mailed code works
    const fresh = new HttpSession(t.url);
    const code = await mailedCode(fresh, owner.email);
    const viaCode = await fresh.post(`/api/users/loginWithCode/${encodeURIComponent(owner.email)}`, {
      loginCode: code,
    });
    expect(viaCode.status, JSON.stringify(viaCode.body)).toBe(200);
    expect(viaCode.body._id).toBe(owner.id);
    expect(fresh.cookie('meridian_device')).toBeTruthy();
  });
});
