/**
 * The whole money journey as a client written from spec §7 alone makes it (./specClient.ts: any call the
 * spec does not name throws), run against the standalone target (tests/api/specJourney.int.spec.ts) and the
 * cluster (tests/cluster/drills.int.spec.ts). The development mailbox stands in for the users' inboxes; it
 * is the only thing read outside spec §7.
 *
 *  1. an investor registers, opens the emailed verification link (PATCH verifyUser/{token}), logs out, and
 *     logs in from a new browser: 'New browser…' → sendLoginCode → the emailed code → loginWithCode;
 *  2. the admin logs in the same way (a new browser), and sees the investor in getUsers;
 *  3. deposits: $300 confirmed and $50 rejected from the pending-deposit list (no claim first):
 *     Deposit Balance $300;
 *  4. $200 invested in the fast plan, approved from adminPendingInvestment: held, then matured:
 *     Deposit Balance $100, Total Investment $0, Total Profit $200 + profit;
 *  5. KYC front and back uploaded, approved from kyc/pending: kycStatus Approved;
 *  6. $100 withdrawn, approved from withDraw/pending: Total Profit $100 less;
 *  7. getTransactionHistory lists both deposits, the investment and the withdrawal;
 *  8. a second user registers with the investor's referral code: the investor's referrals list them;
 *  9. the admin impersonates the investor (getUser is the investor, isImpersonated) and exits.
 * The admin reads the lists on `adminListUrl` and decides on `adminDecideUrl` (two gateways on the cluster).
 */
import { expect } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { linkWith, listMail, loginCodeOf, waitForMail } from '@meridian/gateway/testing/httpSession';
import { PNG } from '@meridian/gateway/testing/routeMatrix';
import { SpecClient, isSpecCall, type SpecResult } from './specClient.js';

export interface SpecJourneyTarget {
  /** The investor's host (the emailed links point there too). */
  investorUrl: string;
  /** Where the admin signs in and reads the lists. */
  adminListUrl: string;
  /** Where the admin sends every decision. */
  adminDecideUrl: string;
  /** Where the development mailbox is read. */
  mailboxUrl: string;
  admin: { email: string; password: string };
  /** A plan of PLANS_JSON that matures within `waitMs`, and its profit in percent. */
  plan: { name: string; ratePercent: number };
  /** How long an eventually consistent outcome (a balance, a list) may take. */
  waitMs: number;
}

export interface SpecAccount {
  id: string;
  email: string;
  password: string;
  client: SpecClient;
}

export interface SpecJourneyResult {
  investor: SpecAccount;
  referred: SpecAccount;
  admin: SpecClient;
  /** Every call every client of the journey made ("METHOD path"). */
  calls: string[];
}

const WALLET = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const PASSWORD = 'Spec-Client-Passw0rd!';

/** Runs `fn`; a failure names the step it happened in. */
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Error) err.message = `[spec journey, ${name}] ${err.message}`;
    throw err;
  }
}

/** A successful answer's body (spec: success is 200 to 299); otherwise fails with the answer. */
function ok<T>(res: SpecResult<T>, what: string): T {
  expect(res.ok, `${what}: ${res.status} ${JSON.stringify(res.body)}`).toBe(true);
  return res.body;
}

/**
 * Login as spec §4 and §8 describe it: a login whose error contains 'New browser' switches on the login-code
 * step (sendLoginCode, the emailed code, loginWithCode). `expectNewBrowser` asserts that the code was needed.
 */
export async function specLogin(
  client: SpecClient,
  mailboxUrl: string,
  email: string,
  password: string,
  expectNewBrowser = true,
): Promise<Record<string, any>> {
  const first = await client.login(email, password);
  if (first.ok && !expectNewBrowser) return first.body;
  expect(first.ok, `login of ${email} from a new browser`).toBe(false);
  expect(String(first.body?.message)).toContain('New browser');
  const known = new Set((await listMail(mailboxUrl, email)).map((m) => m.id));
  ok(await client.sendLoginCode(email), 'sendLoginCode');
  const mail = await waitForMail(
    mailboxUrl,
    email,
    (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text),
    15_000,
  );
  return ok(await client.loginWithCode(email, loginCodeOf(mail)), 'loginWithCode');
}

/** Polls getUser until `want` holds (balances reach identity through events); answers the user. */
async function waitForUser(
  client: SpecClient,
  want: Record<string, unknown>,
  waitMs: number,
  onEachPoll?: () => Promise<unknown>,
): Promise<Record<string, any>> {
  let shown: Record<string, any> = {};
  try {
    return await waitFor(
      async () => {
        await onEachPoll?.();
        shown = ok(await client.getUser(), 'getUser');
        return Object.entries(want).every(([k, v]) => shown[k] === v) ? shown : null;
      },
      { timeoutMs: waitMs, intervalMs: 100 },
    );
  } catch {
    const seen = Object.fromEntries(Object.keys(want).map((k) => [k, shown[k]]));
    throw new Error(`getUser: wanted ${JSON.stringify(want)}, shown ${JSON.stringify(seen)}`);
  }
}

/** Polls an admin list until `find` picks an item out of it. */
async function waitForItem<I, T>(
  list: () => Promise<SpecResult<T>>,
  items: (body: T) => I[],
  find: (item: I) => boolean,
  what: string,
  waitMs: number,
): Promise<I> {
  return waitFor(async () => items(ok(await list(), what)).find(find), {
    timeoutMs: waitMs,
    intervalMs: 100,
    message: what,
  });
}

/** Registers a user in a fresh browser through api/users/register (logged in afterwards). */
async function register(
  url: string,
  name: string,
  email: string,
  referralCode = '',
): Promise<SpecAccount & { user: Record<string, any> }> {
  const client = new SpecClient(url);
  expect(ok(await client.loginStatus(), 'loginStatus')).toBe(false);
  const countries = ok(await client.countries(), 'countries');
  expect(countries).toContainEqual({ name: 'Germany', code: expect.any(String) });
  const user = ok(
    await client.register({
      name,
      email,
      password: PASSWORD,
      phone: '+4915550123',
      referralCode,
      country: 'Germany',
    }),
    'register',
  );
  expect(user).toMatchObject({ name, email, isVerified: false, _id: expect.any(String) });
  expect(ok(await client.loginStatus(), 'loginStatus')).toBe(true);
  return { id: user._id as string, email, password: PASSWORD, client, user };
}

export async function runSpecJourney(t: SpecJourneyTarget): Promise<SpecJourneyResult> {
  const stamp = `${Date.now()}.${Math.random().toString(36).slice(2, 8)}`;
  const email = `spec.client.${stamp}@example.com`;
  const name = 'Spec Client';
  const wait = t.waitMs;
  const clients: SpecClient[] = [];

  // ---------------------------------------------------------------- 1. register, verify, new-browser login
  const investor = await step('register, verify, new-browser login', async () => {
    const registered = await register(t.investorUrl, name, email);
    clients.push(registered.client);
    const plans = ok(await registered.client.plans(), 'plans');
    expect(plans).toContainEqual(
      expect.objectContaining({
        name: t.plan.name,
        minAmount: expect.any(Number),
        maxAmount: expect.any(Number),
      }),
    );
    const mail = await waitForMail(
      t.mailboxUrl,
      email,
      (m) => m.links.some((l) => l.includes('/verify/')),
      15_000,
    );
    const verified = ok(await registered.client.verifyUser(linkWith(mail, '/verify/').token), 'verifyUser');
    expect(verified.message).toEqual(expect.any(String));
    expect(ok(await registered.client.getUser(), 'getUser')).toMatchObject({
      _id: registered.id,
      isVerified: true,
      balance: 0,
      investmentBalance: 0,
      totalMaturityAmount: 0,
      referralCode: expect.any(String),
    });
    expect(ok(await registered.client.logout(), 'logout').message).toEqual(expect.any(String));
    expect(ok(await registered.client.loginStatus(), 'loginStatus')).toBe(false);

    const browser = new SpecClient(t.investorUrl); // a new browser
    clients.push(browser);
    const user = await specLogin(browser, t.mailboxUrl, email, PASSWORD);
    expect(user).toMatchObject({ _id: registered.id, email });
    expect(ok(await browser.loginStatus(), 'loginStatus')).toBe(true);
    return { ...registered, client: browser };
  });
  const inv = investor.client;

  // ---------------------------------------------------------------- 2. the admin, from a new browser
  const { admin, decide } = await step('the admin logs in from a new browser', async () => {
    const lists = new SpecClient(t.adminListUrl);
    clients.push(lists);
    const me = await specLogin(lists, t.mailboxUrl, t.admin.email, t.admin.password);
    expect(me).toMatchObject({ email: t.admin.email, role: 'admin' });
    const users = ok(await lists.getUsers(), 'getUsers');
    expect(users.map((u) => u._id)).toContain(investor.id);
    return { admin: lists, decide: lists.on(t.adminDecideUrl) };
  });

  // ---------------------------------------------------------------- 3. deposits: one confirmed, one rejected
  /** The investor's item (one `also` accepts) once the admin's list shows it. */
  const investorsItem = <I extends { user: { email: string } }, T>(
    list: () => Promise<SpecResult<T>>,
    items: (body: T) => I[],
    what: string,
    also: (item: I) => boolean = () => true,
  ) => waitForItem(list, items, (i) => i.user.email === email && also(i), what, wait);
  /** The investor's deposit of `amount` once the admin's pending-deposit list shows it. */
  const pendingDeposit = (amount: number) =>
    investorsItem(
      () => admin.pendingDeposits(),
      (b) => b.deposit,
      `the $${amount} deposit in pending-deposit`,
      (d) => d.amount === amount,
    );
  const transactionId = await step('deposit $300, the admin confirms without claiming', async () => {
    expect(ok(await inv.createPayment('300'), 'payments/create').message).toEqual(expect.any(String));
    const item = await pendingDeposit(300);
    expect(item).toMatchObject({ amount: 300, status: 'Pending', user: { name, email } });
    const id = (item.transactionId ?? item._id)!;
    expect(ok(await inv.viewPaymentStatus(id), 'viewPaymentStatus').transaction).toMatchObject({
      amount: 300,
      status: 'Pending',
    });
    ok(await decide.confirmPayment(id, 'Received by the spec client journey'), 'confirmPayment');
    await waitForUser(inv, { balance: 300, investmentBalance: 0, totalMaturityAmount: 0 }, wait);
    expect(ok(await inv.viewPaymentStatus(id), 'viewPaymentStatus').transaction).toMatchObject({
      transactionId: id,
      amount: 300,
      status: 'Confirmed',
      notes: 'Received by the spec client journey',
    });
    const pending = ok(await admin.pendingDeposits(), 'pending-deposit').deposit;
    expect(pending.map((d) => d.transactionId ?? d._id)).not.toContain(id);
    return id;
  });

  await step('deposit $50, the admin rejects it', async () => {
    ok(await inv.createPayment('50'), 'payments/create');
    const item = await pendingDeposit(50);
    const id = (item.transactionId ?? item._id)!;
    ok(await decide.rejectPayment(id, 'Not received'), 'rejectPayment');
    expect(ok(await inv.viewPaymentStatus(id), 'viewPaymentStatus').transaction).toMatchObject({
      status: 'Rejected',
      notes: 'Not received',
    });
    await waitForUser(inv, { balance: 300 }, wait);
  });

  // ---------------------------------------------------------------- 4. invest, approve, mature
  const profit = (200 * t.plan.ratePercent) / 100;
  const matured = 200 + profit;
  await step(`invest $200 in ${t.plan.name}, the admin approves, it matures`, async () => {
    expect(ok(await inv.startInvest('200', t.plan.name), 'start-invest').message).toEqual(expect.any(String));
    await waitForUser(inv, { balance: 100 }, wait); // the $200 are held while pending
    const item = await investorsItem(
      () => admin.adminPendingInvestment(),
      (b) => b.pendingInvestments,
      'the investment in adminPendingInvestment',
    );
    expect(item).toMatchObject({ plan: t.plan.name, status: 'pending', amount: 200, user: { name, email } });
    const id = (item.investmentId ?? item._id)!;
    ok(await decide.approveInvestment(id), 'invest approve');
    const pending = ok(await admin.adminPendingInvestment(), 'adminPendingInvestment').pendingInvestments;
    expect(pending.map((i) => i.investmentId ?? i._id)).not.toContain(id);
    // the dashboard's load runs deposit-maturity; the scheduler settles it as well
    await waitForUser(inv, { balance: 100, investmentBalance: 0, totalMaturityAmount: matured }, wait, () =>
      inv.depositMaturity(),
    );
    const mine = ok(await inv.investmentHistory(), 'investment-history').investments;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      plan: t.plan.name,
      status: 'Ended',
      amount: 200,
      maturityAmount: matured,
      startDate: expect.any(String),
      endDate: expect.any(String),
    });
  });

  // ---------------------------------------------------------------- 5. KYC
  await step('KYC front and back uploaded, the admin approves', async () => {
    const png = { type: 'image/png', bytes: PNG };
    const up = ok(
      await inv.uploadKycDocuments({ name: 'front.png', ...png }, { name: 'back.png', ...png }),
      'uploadKycDocuments',
    );
    expect(up.message).toBe('KYC documents uploaded successfully!');
    const item = await waitForItem(
      () => admin.pendingKyc(),
      (b) => b.pendingUsers,
      (u) => u.email === email,
      'the investor in kyc/pending',
      wait,
    );
    expect(item).toMatchObject({ _id: investor.id, name, email });
    expect(ok(await decide.approveKyc(investor.id), 'kyc approve').message).toBe(
      'KYC approved successfully!',
    );
    await waitForUser(inv, { kycStatus: 'Approved' }, wait);
    const pending = ok(await admin.pendingKyc(), 'kyc/pending').pendingUsers;
    expect(pending.map((u) => u._id)).not.toContain(investor.id);
  });

  // ---------------------------------------------------------------- 6. withdraw
  await step('withdraw $100, the admin approves', async () => {
    expect(ok(await inv.createWithdrawal('100', WALLET), 'withDraw/create').message).toEqual(
      expect.any(String),
    );
    await waitForUser(inv, { totalMaturityAmount: matured - 100 }, wait); // held while pending
    const item = await investorsItem(
      () => admin.pendingWithdrawals(),
      (b) => b.withdrawals,
      'the withdrawal in withDraw/pending',
    );
    expect(item).toMatchObject({
      amount: 100,
      walletAddress: WALLET,
      status: 'Pending',
      requestDate: expect.any(String),
      user: { name, email },
    });
    const detail = ok(await admin.getWithdrawal(item._id), 'get-withdrawal');
    expect(detail).toMatchObject({ amount: 100, walletAddress: WALLET, status: 'Pending' });
    ok(await decide.approveWithdrawal(item._id), 'withDraw approve');
    expect(ok(await admin.getWithdrawal(item._id), 'get-withdrawal').status).toBe('Approved');
    const pending = ok(await admin.pendingWithdrawals(), 'withDraw/pending').withdrawals;
    expect(pending.map((w) => w._id)).not.toContain(item._id);
    await waitForUser(inv, { balance: 100, investmentBalance: 0, totalMaturityAmount: matured - 100 }, wait);
  });

  // ---------------------------------------------------------------- 7. history
  await step('getTransactionHistory lists the deposits, the investment and the withdrawal', async () => {
    const { history } = ok(await inv.transactionHistory(), 'getTransactionHistory');
    const brief = history.map((h) => ({ type: h.type, amount: h.amount, status: h.status }));
    expect(brief).toHaveLength(4);
    expect(brief).toEqual(
      expect.arrayContaining([
        { type: 'Transaction', amount: 300, status: 'Confirmed' },
        { type: 'Transaction', amount: 50, status: 'Rejected' },
        { type: 'Investment', amount: 200, status: 'Ended' },
        { type: 'Withdrawal', amount: 100, status: 'Approved' },
      ]),
    );
    for (const h of history) expect(Number.isNaN(Date.parse(h.timestamp)), JSON.stringify(h)).toBe(false);
    expect(history.find((h) => h.type === 'Transaction' && h.amount === 300)?.transactionId).toBe(
      transactionId,
    );
  });

  // ---------------------------------------------------------------- 8. referrals
  const referred = await step('a user registers with the referral code; referrals lists them', async () => {
    expect(ok(await inv.referrals(), 'referrals')).toEqual({ message: 'No referrals' });
    const code = ok(await inv.getUser(), 'getUser').referralCode as string;
    const friend = await register(t.investorUrl, 'Spec Friend', `spec.friend.${stamp}@example.com`, code);
    clients.push(friend.client);
    const answer = ok(await inv.referrals(), 'referrals');
    expect(answer).toEqual({
      referrals: [
        expect.objectContaining({
          _id: friend.id,
          name: 'Spec Friend',
          email: friend.email,
          photo: expect.any(String),
        }),
      ],
    });
    return friend;
  });

  // ---------------------------------------------------------------- 9. impersonation
  await step('the admin impersonates the investor and exits', async () => {
    const adminId = ok(await admin.getUser(), 'getUser')._id as string;
    expect(ok(await decide.impersonate(investor.id), 'impersonate').message).toEqual(expect.any(String));
    expect(ok(await admin.getUser(), 'getUser')).toMatchObject({
      _id: investor.id,
      email,
      isImpersonated: true,
    });
    expect(ok(await decide.exitImpersonation(), 'exit-impersonation').message).toEqual(expect.any(String));
    expect(ok(await admin.getUser(), 'getUser')).toMatchObject({ _id: adminId, isImpersonated: false });
  });

  const calls = clients.flatMap((c) => c.calls);
  expect(calls.filter((c) => !isSpecCall(c.split(' ')[0]!, c.split(' ')[1]!))).toEqual([]);
  return {
    investor: { id: investor.id, email, password: PASSWORD, client: inv },
    referred: { id: referred.id, email: referred.email, password: PASSWORD, client: referred.client },
    admin,
    calls,
  };
}
