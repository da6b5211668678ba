/**
 * Admin money paths: every one refused as anonymous (401), subscriber (403) and author (403) with
 * nothing moved; the three balance edits (add / deduct, a deduct past zero refused, bad amounts).
 */
import { describe, expect, it } from 'vitest';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { QueuePageRequest } from '@meridian/proto/meridian/common/v1/common';
import * as lg from '@meridian/proto/meridian/ledger/v1/ledger';
import { callUnary } from './grpcClients.js';
import { closeMoneyClients, createMoneyClients } from './moneyClients.js';
import { HttpSession } from './testing/httpSession.js';
import { userWithRole, type TestComposition } from './testing/composition.js';
import { balancesOf, requestDeposit, verifiedUser, waitForBalances } from './testing/money.js';
import { moneySpec } from './testing/specComposition.js';

let t: TestComposition;
let admin: HttpSession;
moneySpec((s) => void ({ t, admin } = s));

describe('admin money paths refuse everyone but admins', () => {
  it('anonymous 401, subscriber 403, author 403 on every admin path; nothing moves', async () => {
    const investor = await verifiedUser(t.url);
    const depositId = await requestDeposit(investor.browser, 20);
    const subscriber = await userWithRole(t.url, admin, 'subscriber');
    const author = await userWithRole(t.url, admin, 'author');
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/api/payments/pending-deposit'],
      ['PATCH', '/api/payments/confirmPayment', { transactionId: depositId, status: 'Confirmed' }],
      ['PATCH', '/api/payments/rejectPayment', { transactionId: depositId, status: 'Rejected' }],
      ['GET', '/api/invest/adminPendingInvestment'],
      ['PUT', '/api/invest/some-investment/approve'],
      ['PUT', '/api/invest/some-investment/reject'],
      ['GET', '/api/withDraw/pending'],
      ['PUT', '/api/withDraw/approve/some-withdrawal'],
      ['PUT', '/api/withDraw/reject/some-withdrawal'],
      ['PUT', `/api/users/updateDepositBalance/${investor.id}`, { operation: 'add', amount: 100 }],
      ['PUT', `/api/users/editDepositBalance/${investor.id}`, { operation: 'add', amount: 100 }],
      ['PUT', `/api/users/editinvestmentBalance/${investor.id}`, { operation: 'add', amount: 100 }],
    ];
    const anonymous = new HttpSession(t.url);
    for (const [method, path, body] of calls) {
      const anon = await anonymous.request(method, path, { body });
      expect(anon.status, `${method} ${path} anonymous`).toBe(401);
      for (const [who, browser] of [
        ['subscriber', subscriber.browser],
        ['author', author.browser],
      ] as const) {
        const res = await browser.request(method, path, { body });
        expect(res.status, `${method} ${path} ${who}`).toBe(403);
        expect(res.body.message).toBe('Not authorized as an admin');
      }
    }
    // the owner-or-admin reads: a stranger cannot see another user's records
    expect((await subscriber.browser.get(`/api/payments/viewPaymentStatus/${depositId}`)).status).toBe(404);
    expect((await anonymous.get('/api/invest/getTransactionHistory')).status).toBe(401);
    expect((await anonymous.get('/api/withDraw/balance')).status).toBe(401);
    expect((await anonymous.post('/api/payments/create', { amount: 5 })).status).toBe(401);

    const view = await investor.browser.get(`/api/payments/viewPaymentStatus/${depositId}`);
    expect(view.body.transaction.status).toBe('Pending');
    expect(await balancesOf(investor.browser)).toEqual({
      balance: 0,
      investmentBalance: 0,
      totalMaturityAmount: 0,
    });
  });
});

describe('the services check the role again (behind the gateway)', () => {
  it('a non-admin caller_role is refused by ledger, investment and withdrawal', async () => {
    const investor = await verifiedUser(t.url);
    const c = createMoneyClients({
      ledgerGrpcUrl: t.app.money.ledger.grpcAddress,
      investmentGrpcUrl: t.app.money.investment.grpcAddress,
      withdrawalGrpcUrl: t.app.money.withdrawal.grpcAddress,
    });
    try {
      const who = {
        caller: { userId: investor.id, sessionId: 's', impersonatorId: '', correlationId: 'c' },
        callerRole: 'author',
      };
      const refused = async (p: Promise<unknown>) =>
        expect(
          await p.then(
            () => 'accepted',
            (e: { code: number }) => e.code,
          ),
        ).toBe(GrpcStatus.PERMISSION_DENIED);
      const page = QueuePageRequest.fromPartial(who);
      await refused(callUnary(c.ledger, 'listPendingDeposits', page));
      await refused(
        callUnary(
          c.ledger,
          'adjustBalance',
          lg.AdjustBalanceRequest.fromPartial({
            ...who,
            userId: investor.id,
            account: lg.BalanceAccount.BALANCE_ACCOUNT_DEPOSIT,
            operation: lg.AdjustmentOperation.ADJUSTMENT_OPERATION_ADD,
            amount: '5',
          }),
        ),
      );
      await refused(callUnary(c.investment, 'listPending', page));
      await refused(callUnary(c.withdrawal, 'listPending', page));
      expect(await balancesOf(investor.browser)).toEqual({
        balance: 0,
        investmentBalance: 0,
        totalMaturityAmount: 0,
      });
    } finally {
      closeMoneyClients(c);
    }
  });
});

describe('balance edits: PUT api/users/{updateDepositBalance|editDepositBalance|editinvestmentBalance}/{id}', () => {
  it('add and deduct on each account; a deduct past zero is refused and moves nothing', async () => {
    const investor = await verifiedUser(t.url);
    const added = await admin.put(`/api/users/editDepositBalance/${investor.id}`, {
      operation: 'add',
      amount: 120.5,
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ message: 'Balance updated successfully', balance: 120.5 });
    expect(
      (
        await admin.put(`/api/users/editinvestmentBalance/${investor.id}`, {
          operation: 'add',
          amount: '300',
        })
      ).status,
    ).toBe(200);
    expect((await admin.put(`/api/users/updateDepositBalance/${investor.id}`, { amount: 40 })).status).toBe(
      200,
    ); // operation defaults to add
    await waitForBalances(investor.browser, {
      balance: 120.5,
      investmentBalance: 300,
      totalMaturityAmount: 40,
    });

    const deducted = await admin.put(`/api/users/updateDepositBalance/${investor.id}`, {
      operation: 'deduct',
      amount: 15,
    });
    expect(deducted.status).toBe(200);
    expect(deducted.body.totalMaturityAmount).toBe(25);

    const pastZero = await admin.put(`/api/users/editDepositBalance/${investor.id}`, {
      operation: 'deduct',
      amount: 120.51,
    });
    expect(pastZero.status).toBe(400);
    expect(pastZero.body.message).toBe('Insufficient balance for this deduction');

    for (const body of [
      { operation: 'add', amount: 0 },
      { operation: 'add', amount: -1 },
      { operation: 'add', amount: '1.234' },
      { operation: 'add', amount: { $gt: '' } },
      { operation: 'add' },
      { operation: 'multiply', amount: 5 },
      { operation: { $ne: 'x' }, amount: 5 },
    ]) {
      const res = await admin.put(`/api/users/editinvestmentBalance/${investor.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    await waitForBalances(investor.browser, {
      balance: 120.5,
      investmentBalance: 300,
      totalMaturityAmount: 25,
    });
  });
});

describe('balance edits honour Idempotency-Key: a PUT sent twice, as a proxy retries it, applies once', () => {
  it('on each of the three edits, the same key twice (one after the other and at once) credits once', async () => {
    const investor = await verifiedUser(t.url);
    const edit = (path: string, key: string) =>
      admin.put(
        `/api/users/${path}/${investor.id}`,
        { operation: 'add', amount: 10 },
        { headers: { 'idempotency-key': key } },
      );
    const cases: Array<[string, 'balance' | 'investmentBalance' | 'totalMaturityAmount']> = [
      ['editDepositBalance', 'balance'],
      ['editinvestmentBalance', 'investmentBalance'],
      ['updateDepositBalance', 'totalMaturityAmount'],
    ];
    for (const [path, field] of cases) {
      const key = `credit-${path}-${investor.id}`;
      const first = await edit(path, key);
      const again = await edit(path, key);
      expect([first.status, again.status], path).toEqual([200, 200]);
      expect(first.body[field], path).toBe(10);
      expect(again.body[field], path).toBe(10);
      // twice at once, under another key: one credit
      const raced = await Promise.all([edit(path, `${key}-b`), edit(path, `${key}-b`)]);
      expect(raced.map((r) => r.status)).toEqual([200, 200]);
    }
    await waitForBalances(investor.browser, { balance: 20, investmentBalance: 20, totalMaturityAmount: 20 });
    // without a key, a second PUT is a second credit (the key is what makes a retry one)
    await admin.put(`/api/users/editDepositBalance/${investor.id}`, { operation: 'add', amount: 10 });
    await waitForBalances(investor.browser, { balance: 30 });
  });
});
