/**
 * The account journey against the standalone target started exactly as `make start` starts it
 * (node_modules/.bin/tsx services/standalone/src/main.ts), with plain fetch and cookie jars:
 * register -> verification link from the dev mailbox -> verified -> logout -> login with a fresh
 * cookie jar -> 400 'New browser or device detected' -> code from the mailbox -> logged in ->
 * (restart: data survives) -> an admin suspends the user -> the user's open session is refused at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import {
  HttpSession,
  linkWith,
  listMail,
  loginCodeOf,
  waitForMail,
} from '@meridian/gateway/testing/httpSession';

const ROOT = resolve(import.meta.dirname, '../..');
const ADMIN_EMAIL = 'journey-admin@example.com';
const ADMIN_PASSWORD = 'Journey-Admin-1!';
const dataDir = mkdtempSync(join(tmpdir(), 'meridian-journey-'));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

const running: Running[] = [];

/** Spawns the standalone target like `make start` and resolves with the URL it prints. */
async function startTarget(): Promise<Running> {
  const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['services/standalone/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const r: Running = { child, url: '', output: () => out };
  running.push(r);
  const url = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`standalone exited with ${child.exitCode}:\n${out}`);
      return out.match(/Meridian is running at (http:\/\/localhost:\d+)/)?.[1];
    },
    { timeoutMs: 60_000, intervalMs: 50, message: 'the standalone target prints its URL' },
  ).catch((err) => {
    throw new Error(`${(err as Error).message}\n${out}`);
  });
  r.url = url;
  await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 50,
    message: '/readyz answers 200',
  });
  return r;
}

async function stopTarget(r: Running): Promise<number | null> {
  if (r.child.exitCode !== null) return r.child.exitCode;
  const exited = new Promise<number | null>((res) => r.child.once('exit', (code) => res(code)));
  r.child.kill('SIGTERM');
  return exited;
}

afterAll(async () => {
  for (const r of running) await stopTarget(r);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The new-browser code flow: sendLoginCode, the code from the mailbox, loginWithCode. */
async function loginWithEmailedCode(jar: HttpSession, email: string) {
  const known = new Set((await listMail(jar.baseUrl, email)).map((m) => m.id));
  const sent = await jar.post(`/api/users/sendLoginCode/${encodeURIComponent(email)}`);
  expect(sent.status).toBe(200);
  const mail = await waitForMail(
    jar.baseUrl,
    email,
    (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text),
    15_000,
  );
  return jar.post(`/api/users/loginWithCode/${encodeURIComponent(email)}`, { loginCode: loginCodeOf(mail) });
}

describe('API journey against `make start`', () => {
  it(
    'register, verify, new-browser code login, restart, admin suspends, session refused at once',
    { timeout: 180_000 },
    async () => {
      let target = await startTarget();
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
});
