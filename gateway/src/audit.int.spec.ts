/**
 * The audit trail and the security events through the gateway: an admin confirms a
 * deposit and suspends a user, another admin session impersonates an investor (a profile edit is refused);
 * the trail shows who, on whose behalf, what, when and from which address (X-Forwarded-For through
 * TRUST_PROXY=loopback), filters and pages, exports CSV with formula-like cells defused, refuses
 * non-admins; each user sees only their own sign-ins, new browsers and password changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { auditPageAnswer } from './http/answers.js';
import {
  HttpSession,
  loginCodeOf,
  listMail,
  signIn,
  userWithRole,
  waitForMail,
  type TestComposition,
} from './testing/composition.js';
import {
  adminBrowser,
  registerUser,
  requestDeposit,
  startMoneyComposition,
  verifiedUser,
  waitFor,
} from './testing/money.js';

let t: TestComposition;
const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

beforeAll(async () => {
  t = await startMoneyComposition({ TRUST_PROXY: 'loopback' });
});

afterAll(async () => {
  await t?.stop();
});

const trail = async (admin: HttpSession, query = '') => {
  const res = await admin.get(`/api/admin/audit${query ? `?${query}` : ''}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as z.output<typeof auditPageAnswer>;
};

describe('the audit trail', () => {
  let admin: HttpSession;
  let adminId: string;
  let investor: Awaited<ReturnType<typeof verifiedUser>>;
  let suspended: Awaited<ReturnType<typeof registerUser>>;
  let depositId: string;
  const started = new Date().toISOString();

  beforeAll(async () => {
    admin = await adminBrowser(t.url);
    adminId = (await admin.get('/api/users/getUser')).body._id;
    investor = await verifiedUser(t.url);
    suspended = await registerUser(t.url);
    depositId = await requestDeposit(investor.browser, 20);

    // a decision needs the deciding admin's claim on the item (gateway/src/live/claims.ts)
    const claim = await admin.post('/api/admin/claims', { kind: 'deposit', id: depositId });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    const confirmed = await admin.request('PATCH', '/api/payments/confirmPayment', {
      body: { transactionId: depositId, status: 'Confirmed', notes: '' },
      ...from('203.0.113.7'),
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const adjusted = await admin.put(
      `/api/users/updateDepositBalance/${investor.id}`,
      { operation: 'add', amount: 5 },
      from('203.0.113.7'),
    );
    expect(adjusted.status, JSON.stringify(adjusted.body)).toBe(200);
    const suspend = await admin.request('POST', '/api/users/upgradeUser', {
      body: { role: 'suspended', id: suspended.id },
      ...from('203.0.113.7'),
    });
    expect(suspend.status, JSON.stringify(suspend.body)).toBe(200);

    // a second session of the same admin impersonates the investor (from a formula-like "address")
    const acting = await adminBrowser(t.url);
    const imp = await acting.request('POST', `/api/users/impersonate/${investor.id}`, from('198.51.100.9'));
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    const edit = await acting.request('PATCH', '/api/users/updateUser', {
      body: { bio: 'Edited by support' },
      ...from('198.51.100.9'),
    });
    // the person's profile is theirs: refused, and nothing to record
    expect(edit.status, JSON.stringify(edit.body)).toBe(403);
    expect(edit.body).toEqual({ message: 'Profiles cannot be changed while impersonating' });
    expect((await acting.request('POST', '/api/users/exit-impersonation', from('198.51.100.9'))).status).toBe(
      200,
    );

    await waitFor(
      async () =>
        (await trail(admin, `user=${investor.id}`)).entries.some((e) => e.action === 'ImpersonationEnded') ||
        null,
      { message: 'the impersonation reached the trail', timeoutMs: 10_000 },
    );
  });

  it('records who, on whose behalf, what, when and from which address', async () => {
    const { entries } = await trail(admin, 'limit=500');
    const mine = entries.filter((e) => e.at >= started);
    const one = (action: string, userId: string) => {
      const found = mine.filter((e) => e.action === action && e.userId === userId);
      expect(found, `${action} for ${userId}`).toHaveLength(1);
      return found[0];
    };
    expect(one('DepositConfirmed', investor.id)).toMatchObject({
      adminId,
      adminEmail: 'admin@meridian.test',
      userEmail: investor.email,
      service: 'ledger',
      address: '203.0.113.7',
      impersonating: false,
    });
    expect(JSON.parse(one('DepositConfirmed', investor.id).details)).toMatchObject({
      depositId,
      amountCents: 2000,
    });
    expect(one('RoleChanged', suspended.id)).toMatchObject({
      adminId,
      service: 'identity',
      address: '203.0.113.7',
      impersonating: false,
    });
    expect(JSON.parse(one('RoleChanged', suspended.id).details)).toMatchObject({ toRole: 'suspended' });
    expect(one('BalanceAdjusted', investor.id)).toMatchObject({
      adminId,
      service: 'ledger',
      address: '203.0.113.7',
    });
    expect(JSON.parse(one('BalanceAdjusted', investor.id).details)).toMatchObject({
      reason: 'admin_adjustment',
    });
    expect(one('ImpersonationStarted', investor.id)).toMatchObject({ adminId, address: '198.51.100.9' });
    expect(mine.some((e) => e.action === 'ProfileUpdated' && e.userId === investor.id)).toBe(false);
    expect(one('ImpersonationEnded', investor.id)).toMatchObject({ adminId, address: '198.51.100.9' });
    // what the action caused downstream is not an entry of its own; newest first
    expect(mine.some((e) => e.action === 'BalancesChanged' || e.action === 'TransactionPosted')).toBe(false);
    const keys = entries.map((e) => `${e.at}|${e.id}`);
    expect([...keys].sort().reverse()).toEqual(keys);
    for (const e of mine) expect(Date.parse(e.at)).not.toBeNaN();
  });

  it('records a claim takeover: who took the item over from whom, which item, when, from which address', async () => {
    const item = await requestDeposit(investor.browser, 30);
    const second = await userWithRole(t.url, admin, 'admin');
    const other = new HttpSession(t.url);
    await signIn(other, second.email, second.password);
    expect((await admin.post('/api/admin/claims', { kind: 'deposit', id: item })).status).toBe(200);
    const before = new Date().toISOString();
    const taken = await other.request(
      'POST',
      `/api/admin/claims/deposit/${item}/takeover`,
      from('192.0.2.44'),
    );
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.claim).toMatchObject({ kind: 'deposit', id: item, adminId: second.id });
    expect(taken.body.claim).not.toHaveProperty('takenOverFrom');
    const entry = await waitFor(
      async () =>
        (await trail(admin, 'action=ClaimTakenOver&limit=500')).entries.find((e) =>
          e.details.includes(item),
        ) ?? null,
      { message: 'the takeover reached the trail', timeoutMs: 10_000 },
    );
    expect(entry).toMatchObject({
      adminId: second.id,
      adminEmail: second.email,
      userId: adminId,
      userEmail: 'admin@meridian.test',
      action: 'ClaimTakenOver',
      service: 'identity',
      address: '192.0.2.44',
      impersonating: false,
    });
    expect(entry.at >= before.slice(0, 19)).toBe(true);
    expect(JSON.parse(entry.details)).toMatchObject({
      kind: 'deposit',
      itemId: item,
      adminId: second.id,
      fromAdminId: adminId,
    });
    // filtered by the admin taken over from, too; taking over an item nobody holds is a claim, not an entry
    const byVictim = await trail(admin, `user=${adminId}&action=ClaimTakenOver`);
    expect(byVictim.entries.map((e) => e.id)).toContain(entry.id);
    const free = await requestDeposit(investor.browser, 25);
    expect((await other.post(`/api/admin/claims/deposit/${free}/takeover`)).status).toBe(200);
    expect((await other.delete(`/api/admin/claims/deposit/${free}`)).status).toBe(200);
    expect((await other.delete(`/api/admin/claims/deposit/${item}`)).status).toBe(200);
    const all = await trail(admin, 'action=ClaimTakenOver&limit=500');
    expect(all.entries.filter((e) => e.details.includes(free))).toEqual([]);
    expect(all.entries.filter((e) => e.details.includes(item))).toHaveLength(1);
  });

  it('filters by admin, user, action and period, and pages with a cursor', async () => {
    const byAction = await trail(admin, 'action=RoleChanged');
    expect(byAction.entries.length).toBeGreaterThan(0);
    expect(byAction.entries.every((e) => e.action === 'RoleChanged')).toBe(true);

    const byUser = await trail(admin, `user=${encodeURIComponent(investor.email)}`);
    expect(byUser.entries.map((e) => e.action).sort()).toEqual(
      ['BalanceAdjusted', 'DepositConfirmed', 'ImpersonationEnded', 'ImpersonationStarted'].sort(),
    );
    expect((await trail(admin, `admin=${adminId}&user=${investor.id}`)).entries).toHaveLength(4);
    expect((await trail(admin, `admin=${investor.id}`)).entries).toHaveLength(0);
    expect((await trail(admin, `admin=nobody%40example.com`)).entries).toHaveLength(0);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await trail(admin, `user=${investor.id}&from=${future}`)).entries).toHaveLength(0);
    expect((await trail(admin, `user=${investor.id}&to=${started}`)).entries).toHaveLength(0);
    expect((await trail(admin, `user=${investor.id}&from=${started}&to=${future}`)).entries).toHaveLength(4);

    const pages: string[] = [];
    let cursor = '';
    do {
      const p = await trail(
        admin,
        `user=${investor.id}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(p.entries.length).toBeLessThanOrEqual(3);
      pages.push(...p.entries.map((e) => e.id));
      cursor = p.nextCursor;
    } while (cursor);
    expect(pages).toEqual(byUser.entries.map((e) => e.id));

    expect((await admin.get('/api/admin/audit?from=yesterday')).status).toBe(400);
    expect((await admin.get('/api/admin/audit?limit=0')).status).toBe(400);
  });

  it('exports CSV with every matching row and no cell a spreadsheet would run', async () => {
    const res = await admin.get(`/api/admin/audit?format=csv&user=${investor.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-.*\.csv"$/);
    const lines = (res.body as string).trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,admin,adminId,user,userId,action,service,address,impersonating,details');
    expect(lines).toHaveLength(5);
    expect(lines.some((l) => l.includes(',ImpersonationStarted,identity,198.51.100.9,false,'))).toBe(true);
    // the details cell is JSON: quoted, inner quotes doubled
    expect(lines[1]).toMatch(/,"\{""/);
  });

  it('defuses a formula-like address (a forged X-Forwarded-For) in the CSV', async () => {
    const victim = await registerUser(t.url);
    const res = await admin.request('POST', '/api/users/upgradeUser', {
      body: { role: 'author', id: victim.id },
      ...from('=HYPERLINK("http://evil.example")'),
    });
    expect(res.status).toBe(200);
    await waitFor(
      async () => (await trail(admin, `user=${victim.id}`)).entries[0] ?? null,
      'role change in the trail',
    );
    const { entries } = await trail(admin, `user=${victim.id}`);
    const csv = (await admin.get(`/api/admin/audit?format=csv&user=${victim.id}`)).body as string;
    // Express passes the forwarded value on as req.ip: the export must not start a cell with it
    expect(entries[0].address).toBe('=HYPERLINK("http://evil.example")');
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(csv).not.toMatch(/(^|,)[=+\-@]/m);
  });

  it('is admin only', async () => {
    expect((await investor.browser.get('/api/admin/audit')).status).toBe(403);
    expect((await investor.browser.get('/api/admin/audit?format=csv')).status).toBe(403);
    expect((await new HttpSession(t.url).get('/api/admin/audit')).status).toBe(401);
    // an admin impersonating a user has the user's powers only
    const acting = await adminBrowser(t.url);
    await acting.post(`/api/users/impersonate/${investor.id}`);
    expect((await acting.get('/api/admin/audit')).status).toBe(403);
    await acting.post('/api/users/exit-impersonation');
  });
});

describe('security events', () => {
  it("a user sees their own sign-ins, new browsers and password changes, with address and time, and no one else's", async () => {
    const ann = await registerUser(t.url);
    const other = await registerUser(t.url);
    const before = new Date().toISOString();

    // a new browser: the password is refused, the emailed code signs in and trusts it
    const browser = new HttpSession(t.url);
    const first = await browser.request('POST', '/api/users/login', {
      body: { email: ann.email, password: ann.password },
      ...from('192.0.2.10'),
    });
    expect(first.status).toBe(400);
    const known = new Set((await listMail(t.url, ann.email)).map((m) => m.id));
    await browser.post(`/api/users/sendLoginCode/${encodeURIComponent(ann.email)}`);
    const mail = await waitForMail(t.url, ann.email, (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text));
    const code = await browser.request('POST', `/api/users/loginWithCode/${encodeURIComponent(ann.email)}`, {
      body: { loginCode: loginCodeOf(mail) },
      ...from('192.0.2.10'),
    });
    expect(code.status).toBe(200);
    // the same browser again: a plain sign-in
    const again = await browser.request('POST', '/api/users/login', {
      body: { email: ann.email, password: ann.password },
      ...from('192.0.2.11'),
    });
    expect(again.status).toBe(200);
    const changed = await browser.request('PATCH', '/api/users/changePassword', {
      body: { oldPassword: ann.password, password: 'Fresh-Passw0rd!' },
      ...from('192.0.2.12'),
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    // a password change ends every session: sign in again from the trusted browser
    expect(
      (await browser.post('/api/users/login', { email: ann.email, password: 'Fresh-Passw0rd!' })).status,
    ).toBe(200);
    const events = await waitFor(async () => {
      const res = await browser.get('/api/users/securityEvents');
      const list = (res.body?.events ?? []) as Array<{
        kind: string;
        method: string;
        address: string;
        at: string;
      }>;
      return list.some((e) => e.kind === 'password_changed') ? list : null;
    }, 'the password change reached the security events');
    const kinds = events.map((e) => `${e.kind}:${e.method}:${e.address}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'new_device:code:192.0.2.10',
        'login:password:192.0.2.11',
        'password_changed:change:192.0.2.12',
      ]),
    );
    const newest = events.map((e) => e.at);
    expect([...newest].sort().reverse()).toEqual(newest);
    expect(events.every((e) => e.at >= before)).toBe(true);

    // the other user's list has none of Ann's
    const theirs = (await other.browser.get('/api/users/securityEvents')).body.events as Array<{
      id: string;
    }>;
    const annIds = new Set(events.map((e) => (e as unknown as { id: string }).id));
    expect(theirs.some((e) => annIds.has(e.id))).toBe(false);
    expect((await new HttpSession(t.url).get('/api/users/securityEvents')).status).toBe(401);
  });
});
