/**
 * Deposits through the gateway and the real standalone composition: create → pending
 * list → confirm → getUser balance; the investor's socket gets balances/changed, every admin socket
 * queue/itemAdded then queue/itemDecided; reject moves nothing; decided once (409); bad amounts; the
 * referral bonus; emails. After each test the ledger reconciliation check holds.
 */
import { describe, expect, it } from 'vitest';
import { listMail, mailsWith, type TestComposition } from './testing/composition.js';
import {
  adminBrowser,
  balancesOf,
  confirmDeposit,
  openSocket,
  requestDeposit,
  verifiedUser,
  waitFor,
  waitForBalances,
  type RecordingSocket,
  decidePayment,
} from './testing/money.js';
import type { HttpSession } from './testing/httpSession.js';
import { moneySpec } from './testing/specComposition.js';

let t: TestComposition;
let admin: HttpSession;
const sockets: RecordingSocket[] = [];
moneySpec((s) => void ({ t, admin } = s), sockets);

describe('deposits: api/payments/*', () => {
  it('create → pending-deposit lists it → confirm → balance, live pushes to the investor and every admin', async () => {
    const investor = await verifiedUser(t.url, { name: 'Dora Deposit' });
    const [investorSocket, adminSocket, otherAdminSocket] = await Promise.all([
      openSocket(t.url, investor.browser),
      openSocket(t.url, admin),
      openSocket(t.url, await adminBrowser(t.url)),
    ]);
    sockets.push(investorSocket, adminSocket, otherAdminSocket);

    const created = await investor.browser.post('/api/payments/create', { amount: '250.50' });
    expect(created.status).toBe(201);
    expect(created.body.message).toMatch(/Deposit request submitted/);
    const id = created.body.transactionId as string;

    const pending = await admin.get('/api/payments/pending-deposit');
    expect(pending.status).toBe(200);
    expect(pending.body.message).toBe('Pending deposits fetched successfully!');
    const item = (pending.body.deposit as Array<Record<string, unknown>>).find((d) => d.transactionId === id);
    expect(item).toMatchObject({
      _id: id,
      transactionId: id,
      amount: 250.5,
      status: 'Pending',
      user: { _id: investor.id, name: 'Dora Deposit', email: investor.email },
    });
    expect(typeof item?.createdAt).toBe('string');

    // both admins see it appear, with exactly the shape of the list element
    for (const s of [adminSocket, otherAdminSocket]) {
      const added = await s.waitFor(
        (p) => p.event === 'queue/itemAdded' && (p.payload.item as { _id?: string })?._id === id,
        'itemAdded',
      );
      expect(added.payload).toMatchObject({ queue: 'deposits', item: { ...item } });
      expect(typeof added.payload.position).toBe('string');
    }

    const status = await investor.browser.get(`/api/payments/viewPaymentStatus/${id}`);
    expect(status.status).toBe(200);
    expect(status.body.transaction).toMatchObject({
      transactionId: id,
      amount: 250.5,
      status: 'Pending',
      notes: '',
    });

    const confirmed = await decidePayment(admin, 'confirm', id, 'wire ok');
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      message: 'Payment confirmed successfully',
      transaction: { status: 'Confirmed', notes: 'wire ok' },
    });

    expect(await waitForBalances(investor.browser, { balance: 250.5 })).toEqual({
      balance: 250.5,
      investmentBalance: 0,
      totalMaturityAmount: 0,
    });
    const pushed = await investorSocket.waitFor((p) => p.event === 'balances/changed', 'balances/changed');
    expect(pushed.payload).toMatchObject({
      userId: investor.id,
      balances: { balance: 250.5, investmentBalance: 0, totalMaturityAmount: 0 },
    });
    await investorSocket.waitFor(
      (p) => p.event === 'status/changed' && p.payload.id === id && p.payload.status === 'Confirmed',
    );

    for (const s of [adminSocket, otherAdminSocket]) {
      const decided = await s.waitFor(
        (p) => p.event === 'queue/itemDecided' && p.payload.id === id,
        'itemDecided',
      );
      expect(decided.payload).toMatchObject({ queue: 'deposits', id, status: 'Confirmed' });
      const order = s.pushes.filter((p) => p.event.startsWith('queue/')).map((p) => p.event);
      expect(order.indexOf('queue/itemAdded')).toBeLessThan(order.indexOf('queue/itemDecided'));
    }
    // positions increase on each socket
    const positions = investorSocket.pushes.map((p) => Number(String(p.payload.position).split('.')[1]));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // the investor's socket never sees the admin queue
    expect(investorSocket.pushes.some((p) => p.event.startsWith('queue/'))).toBe(false);

    // the pending list no longer has it; the email went out once
    const after = await admin.get('/api/payments/pending-deposit');
    expect((after.body.deposit as Array<{ _id: string }>).some((d) => d._id === id)).toBe(false);
    const mail = await mailsWith(t.url, investor.email, 'Your deposit was confirmed');
    expect(mail).toHaveLength(1);
    expect(mail[0].text).toContain('$250.50');
  });

  it('reject moves nothing; a second decision is refused with 409 and a clear message', async () => {
    const investor = await verifiedUser(t.url);
    const id = await requestDeposit(investor.browser, 40);
    const rejected = await decidePayment(admin, 'reject', id, 'no funds arrived');
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      message: 'Payment rejected successfully',
      transaction: { status: 'Rejected', notes: 'no funds arrived' },
    });

    const again = await decidePayment(admin, 'confirm', id);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('This deposit has already been rejected');
    const twice = await admin.patch('/api/payments/rejectPayment', { transactionId: id, status: 'Rejected' });
    expect(twice.status).toBe(409);

    await waitFor(async () =>
      (await listMail(t.url, investor.email)).some((m) => m.subject === 'Your deposit was rejected'),
    );
    expect(await balancesOf(investor.browser)).toEqual({
      balance: 0,
      investmentBalance: 0,
      totalMaturityAmount: 0,
    });

    const other = await verifiedUser(t.url);
    const otherId = await requestDeposit(other.browser, 10);
    await confirmDeposit(admin, otherId);
    const confirmTwice = await decidePayment(admin, 'confirm', otherId);
    expect(confirmTwice.status).toBe(409);
    expect(confirmTwice.body.message).toBe('This deposit has already been confirmed');
    await waitForBalances(other.browser, { balance: 10 });
  });

  it('two admins deciding the same deposit at once: one wins, the other gets 409', async () => {
    const investor = await verifiedUser(t.url);
    const id = await requestDeposit(investor.browser, 75);
    const second = await adminBrowser(t.url);
    const results = await Promise.all([
      admin.patch('/api/payments/confirmPayment', { transactionId: id, status: 'Confirmed' }),
      second.patch('/api/payments/rejectPayment', { transactionId: id, status: 'Rejected' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    // the loser lost the item's review claim (live/claims.ts): refused while the winner held it, or its decision
    // came after the winner's decision released it
    expect(loser.body.message).toMatch(
      /^(This deposit has already been (confirmed|rejected)|This item is being reviewed by .+)$/,
    );
  });

  it('bad amounts → 400 and nothing moves', async () => {
    const investor = await verifiedUser(t.url);
    const bad: Array<[unknown, RegExp]> = [
      [0, /greater than zero/],
      ['0', /greater than zero/],
      [-5, /negative|valid amount/],
      ['10.005', /2 decimal/],
      [10.005, /2 decimal/],
      [1_000_000.01, /maximum deposit|too large/],
      ['abc', /valid amount/],
      [{ $gt: '' }, /amount must be a number/],
      [['5'], /amount must be a number/],
      [true, /amount must be a number/],
      [undefined, /Please enter an amount/],
      ['', /Please enter an amount/],
    ];
    for (const [amount, message] of bad) {
      const res = await investor.browser.post('/api/payments/create', amount === undefined ? {} : { amount });
      expect(res.status, JSON.stringify(amount)).toBe(400);
      expect(res.body.message, JSON.stringify(amount)).toMatch(message);
    }
    const ok = await investor.browser.post('/api/payments/create', { amount: 1_000_000 });
    expect(ok.status).toBe(201);
    const mine = await admin.get('/api/payments/pending-deposit');
    expect(
      (mine.body.deposit as Array<{ user: { _id: string } }>).filter((d) => d.user._id === investor.id),
    ).toHaveLength(1);
    expect(await balancesOf(investor.browser)).toEqual({
      balance: 0,
      investmentBalance: 0,
      totalMaturityAmount: 0,
    });
  });

  it('an unverified email cannot deposit; another user cannot view the payment', async () => {
    const { registerUser } = await import('./testing/composition.js');
    const unverified = await registerUser(t.url);
    const res = await unverified.browser.post('/api/payments/create', { amount: 10 });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Please verify your email before making a deposit');

    const owner = await verifiedUser(t.url);
    const id = await requestDeposit(owner.browser, 12);
    const stranger = await verifiedUser(t.url);
    const peek = await stranger.browser.get(`/api/payments/viewPaymentStatus/${id}`);
    expect(peek.status).toBe(404);
    expect((await admin.get(`/api/payments/viewPaymentStatus/${id}`)).status).toBe(200);
  });

  it('referral bonus: $5 to the referrer once, on the referee FIRST confirmed deposit, with an email', async () => {
    const referrer = await verifiedUser(t.url, { name: 'Rita Referrer' });
    const code = (await referrer.browser.get('/api/users/getUser')).body.referralCode as string;
    const referee = await verifiedUser(t.url, { name: 'Ralf Referee', referralCode: code });

    const referrals = await referrer.browser.get('/api/users/referrals');
    expect(referrals.status).toBe(200);
    expect(referrals.body).toEqual({
      referrals: [expect.objectContaining({ _id: referee.id, name: 'Ralf Referee', email: referee.email })],
    });

    await confirmDeposit(admin, await requestDeposit(referee.browser, 100));
    await waitForBalances(referrer.browser, { balance: 5 });
    await confirmDeposit(admin, await requestDeposit(referee.browser, 50));
    await waitForBalances(referee.browser, { balance: 150 });
    await t.app.money.flushOutboxes();
    expect((await balancesOf(referrer.browser)).balance).toBe(5);

    const bonusMail = await mailsWith(t.url, referrer.email, 'You earned a referral bonus');
    expect(bonusMail).toHaveLength(1);
    expect(bonusMail[0].text).toContain('Ralf Referee');
  });
});
