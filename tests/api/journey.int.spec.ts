/**
 * The account journey against the standalone target started exactly as `make start` starts it
 * (node_modules/.bin/tsx services/standalone/src/main.ts), with plain fetch and cookie jars:
 * register -> verification link from the dev mailbox -> verified -> logout -> login with a fresh
 * cookie jar -> 400 'New browser or device detected' -> code from the mailbox -> logged in ->
 * (restart: data survives) -> an admin suspends the user -> the user's open session is refused at once.
 */
import { expect } from 'vitest';
import { HttpSession, linkWith, waitForMail } from '@meridian/gateway/testing/httpSession';
import { describeTargetJourney, loginWithEmailedCode, restartableTarget } from '../support/apiJourney.js';
import { stopTarget } from '../support/standalone.js';

const ADMIN_EMAIL = 'journey-admin@example.com';
const ADMIN_PASSWORD = 'Journey-Admin-1!';
/** The standalone target like `make start` (same DATA_DIR on every start). */
const journeyTarget = restartableTarget('journey', {
  adminEmail: ADMIN_EMAIL,
  adminPassword: ADMIN_PASSWORD,
});
const { start: startTarget } = journeyTarget;

describeTargetJourney(
  journeyTarget,
  {
    title: 'API journey against `make start`',
    journey: 'register, verify, new-browser code login, restart, admin suspends, session refused at once',
    timeout: 180_000,
  },
  async (firstStart) => {
    let target = firstStart;
    expect(target.output()).toContain(`Admin login:  ${ADMIN_EMAIL}`);
    expect(target.output()).toContain('/api/dev/mailbox?to=EMAIL');
    const email = `journey.${Date.now()}@example.com`;
    const password = 'Journey-Passw0rd';

    // register in browser A
    const a = new HttpSession(target.url);
    expect((await a.get('/api/users/loginStatus')).body).toBe(false);
    const reg = await a.post('/api/users/register', {
      name: 'Journey User',
      email,
      password,
      phone: '+15550123',
      country: 'Germany',
    });
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({ email, isVerified: false, role: 'subscriber' });
    const userId = reg.body._id as string;

    // the verification link from the dev mailbox
    const verifyMail = await waitForMail(
      target.url,
      email,
      (m) => m.links.some((l) => l.includes('/verify/')),
      15_000,
    );
    const { token } = linkWith(verifyMail, '/verify/');
    const verified = await a.patch(`/api/users/verifyUser/${token}`);
    expect(verified.status).toBe(200);
    expect((await a.get('/api/users/getUser')).body).toMatchObject({ _id: userId, isVerified: true });

    // logout
    expect((await a.get('/api/users/logout')).status).toBe(200);
    expect((await a.get('/api/users/loginStatus')).body).toBe(false);
    expect((await a.get('/api/users/getUser')).status).toBe(401);

    // a FRESH cookie jar: new browser
    const b = new HttpSession(target.url);
    const refused = await b.post('/api/users/login', { email, password });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'New browser or device detected' });
    const codeLogin = await loginWithEmailedCode(b, email);
    expect(codeLogin.status).toBe(200);
    expect(codeLogin.body).toMatchObject({ _id: userId, email });
    expect((await b.get('/api/users/loginStatus')).body).toBe(true);

    // restart: a graceful stop, and the data (users, trusted browsers) survives
    expect(await stopTarget(target)).toBe(0);
    target = await startTarget();
    const b2 = new HttpSession(target.url);
    for (const name of ['meridian_device']) b2.cookies.set(name, b.cookie(name)!);
    const again = await b2.post('/api/users/login', { email, password });
    expect(again.status).toBe(200);
    expect((await b2.get('/api/users/getUser')).body).toMatchObject({ _id: userId, isVerified: true });

    // the admin, from their own fresh browser, passes the same new-browser code flow
    const admin = new HttpSession(target.url);
    const adminFirst = await admin.post('/api/users/login', {
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
    });
    expect(adminFirst.status).toBe(400);
    expect(adminFirst.body.message).toBe('New browser or device detected');
    expect((await loginWithEmailedCode(admin, ADMIN_EMAIL)).status).toBe(200);
    const users = await admin.get('/api/users/getUsers');
    expect(users.status).toBe(200);
    expect(users.body.map((u: { _id: string }) => u._id)).toContain(userId);

    // suspension refuses the user's open session at once
    const suspend = await admin.post('/api/users/upgradeUser', { role: 'suspended', id: userId });
    expect(suspend.status).toBe(200);
    const afterSuspend = await b2.get('/api/users/getUser');
    expect(afterSuspend.status).toBe(401);
    expect((await b2.get('/api/users/loginStatus')).body).toBe(false);
    const relogin = await b2.post('/api/users/login', { email, password });
    expect(relogin.status).toBeGreaterThanOrEqual(400);
    expect(relogin.body.message).toMatch(/suspended/i);
  },
);
