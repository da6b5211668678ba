/**
 * The withdrawal service through its gRPC surface, against the real ledger (in process, SQLite
 * ':memory:'), on one in-process bus. After every test: the ledger's reconciliation invariants.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { conflict } from '@meridian/platform/eventSourcing/errors';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { stackPerTest } from '@meridian/held-request/testing/testStack';
import { ADMIN, ADMIN_2, WALLET, caller, grpcError, startStack } from './testing/harness.js';

const BTC = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const stack = stackPerTest(() => startStack());
const user = () => `user-${randomUUID()}`;

const request = (
  userId: string,
  amount: string,
  o: {
    wallet?: string;
    id?: string;
    verified?: boolean;
    kyc?: string;
    role?: string;
    /** an admin impersonating the user */
    impersonatorId?: string;
  } = {},
) =>
  stack.call('requestWithdrawal', {
    caller: { ...caller(userId), impersonatorId: o.impersonatorId ?? '' },
    callerRole: o.role ?? 'subscriber',
    callerVerified: o.verified ?? true,
    callerKycStatus: o.kyc ?? 'Approved',
    amount,
    walletAddress: o.wallet ?? WALLET,
    withdrawalId: o.id ?? '',
  });
const decide = (method: 'approveWithdrawal' | 'rejectWithdrawal', withdrawalId: string, admin = ADMIN) =>
  stack.call(method, { caller: caller(admin.userId), callerRole: admin.role, withdrawalId });
const pending = () => stack.call('listPending', { caller: caller(ADMIN.userId), callerRole: 'admin' });

describe('request', () => {
  it('holds the amount on Total Profit and answers the message', async () => {
    const u = user();
    await stack.fund(u, '200');
    const res = await request(u, '75.25', { wallet: `  ${BTC} ` });
    expect(res.message).toBe('Withdrawal request submitted successfully');
    expect(res.withdrawal).toMatchObject({
      status: 'Pending',
      amountCents: 7_525,
      walletAddress: BTC,
      network: 'bitcoin',
    });
    expect(await stack.balances(u)).toMatchObject({ profitCents: 12_475, withdrawalHoldCents: 7_525 });
  });

  it('refuses with clear messages', async () => {
    const { FAILED_PRECONDITION, INVALID_ARGUMENT } = status;
    const u = user();
    await stack.fund(u, '100');
    const refusals: ReadonlyArray<[amount: string, o: Parameters<typeof request>[2], answer: object]> = [
      [
        '60',
        { verified: false },
        { code: FAILED_PRECONDITION, details: 'Please verify your email before requesting a withdrawal' },
      ],
      [
        '60',
        { kyc: 'Pending' },
        { details: 'Your KYC verification must be approved before you can withdraw' },
      ],
      ['49.99', {}, { code: INVALID_ARGUMENT, details: 'Minimum withdrawal amount is $50' }],
      ['100.01', {}, { code: FAILED_PRECONDITION, details: 'Insufficient balance' }],
      ['60', { wallet: 'not-a-wallet' }, { details: 'Please enter a valid wallet address' }],
      ['60', { wallet: '' }, { details: 'Please enter a wallet address' }],
      ['', {}, { details: 'Please enter an amount' }],
    ];
    for (const [amount, o, answer] of refusals)
      expect(await grpcError(request(u, amount, o))).toMatchObject(answer);
    expect(await stack.balances(u)).toMatchObject({ profitCents: 10_000, withdrawalHoldCents: 0 });
  });
});

describe('admin', () => {
  it('pending list with name and email; detail for owner or admin, always with an amount', async () => {
    const u = user();
    await stack.registerUser(u, 'Grace Payout', 'grace@example.com');
    await stack.fund(u, '300');
    const id = (await request(u, '120')).withdrawal!.withdrawalId;
    await waitFor(
      async () =>
        (await pending()).withdrawals.find((w) => w.withdrawalId === id)?.userName === 'Grace Payout',
      'directory',
    );
    expect((await pending()).withdrawals.find((w) => w.withdrawalId === id)).toMatchObject({
      userEmail: 'grace@example.com',
      amountCents: 12_000,
      walletAddress: WALLET,
    });
    expect(
      await stack.call('getWithdrawal', { caller: caller(u), callerRole: 'subscriber', withdrawalId: id }),
    ).toMatchObject({ amountCents: 12_000, status: 'Pending' });
    expect(
      await grpcError(
        stack.call('getWithdrawal', { caller: caller(user()), callerRole: 'subscriber', withdrawalId: id }),
      ),
    ).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(
      await grpcError(stack.call('listPending', { caller: caller(u), callerRole: 'subscriber' })),
    ).toMatchObject({
      code: status.PERMISSION_DENIED,
      details: 'Not authorized, admin only',
    });
    expect(
      await grpcError(
        stack.call('getWithdrawal', {
          caller: caller(ADMIN.userId),
          callerRole: 'admin',
          withdrawalId: 'nope',
        }),
      ),
    ).toMatchObject({
      code: status.NOT_FOUND,
      details: 'Withdrawal not found',
    });
  });

  it('approve pays out (captured to cash); reject releases back to Total Profit', async () => {
    const u = user();
    await stack.fund(u, '300');
    const a = (await request(u, '100')).withdrawal!.withdrawalId;
    const b = (await request(u, '150')).withdrawal!.withdrawalId;
    expect(await decide('approveWithdrawal', a)).toMatchObject({
      message: 'Withdrawal approved successfully',
      withdrawal: { status: 'Approved', amountCents: 10_000 },
    });
    expect(await decide('rejectWithdrawal', b)).toMatchObject({
      message: 'Withdrawal rejected successfully',
      withdrawal: { status: 'Rejected' },
    });
    expect(await stack.balances(u)).toMatchObject({ profitCents: 20_000, withdrawalHoldCents: 0 });
    expect((await pending()).withdrawals.filter((w) => w.userId === u)).toEqual([]);
    expect(await grpcError(decide('rejectWithdrawal', a))).toMatchObject({
      code: status.ALREADY_EXISTS,
      details: 'This withdrawal has already been approved',
      errorCode: 'ALREADY_DECIDED',
    });
    await stack.service.flushOutbox();
    expect(stack.published.map((e) => e.type)).toEqual([
      'WithdrawalRequested',
      'WithdrawalRequested',
      'WithdrawalApproved',
      'WithdrawalRejected',
    ]);
  });
});

describe('maker-checker and impersonation', () => {
  const OWN =
    'You cannot decide your own withdrawal: another admin must review it (if you are the only admin, a second admin is needed)';
  const IMPERSONATING = 'Money actions are not allowed while impersonating a user';

  it('an admin cannot approve or reject their own withdrawal; a second admin can', async () => {
    await stack.fund(ADMIN_2.userId, '300');
    const id = (await request(ADMIN_2.userId, '100', { role: 'admin' })).withdrawal!.withdrawalId;
    for (const method of ['approveWithdrawal', 'rejectWithdrawal'] as const)
      expect(await grpcError(decide(method, id, ADMIN_2))).toMatchObject({
        code: status.PERMISSION_DENIED,
        details: OWN,
      });
    expect((await pending()).withdrawals.map((w) => w.withdrawalId)).toContain(id);
    expect(await stack.balances(ADMIN_2.userId)).toMatchObject({ withdrawalHoldCents: 10_000 });
    expect(await decide('approveWithdrawal', id, ADMIN)).toMatchObject({
      withdrawal: { status: 'Approved', decidedBy: ADMIN.userId },
    });
  });

  it('while impersonating, a withdrawal is refused with a clear message and nothing is held; reading works', async () => {
    const u = user();
    await stack.fund(u, '300');
    const mine = (await request(u, '100')).withdrawal!.withdrawalId;
    const asAdmin = { ...caller(u), impersonatorId: ADMIN.userId };
    expect(await grpcError(request(u, '100', { impersonatorId: ADMIN.userId }))).toMatchObject({
      code: status.PERMISSION_DENIED,
      details: IMPERSONATING,
    });
    expect(await stack.balances(u)).toMatchObject({ profitCents: 20_000, withdrawalHoldCents: 10_000 });
    const seen = await stack.call('listUserWithdrawals', { caller: asAdmin, callerRole: 'subscriber' });
    expect(seen.withdrawals.map((w) => w.withdrawalId)).toEqual([mine]);
    expect(
      (await stack.call('getWithdrawal', { caller: asAdmin, callerRole: 'subscriber', withdrawalId: mine }))
        .status,
    ).toBe('Pending');
  });
});

describe('faults', () => {
  it('an approval whose capture the ledger refuses is not reported as done; the capture stays owed', async () => {
    const u = user();
    await stack.fund(u, '300');
    const id = (await request(u, '100')).withdrawal!.withdrawalId;
    await stack.restartWithLedger({
      captureHold: async () =>
        Promise.reject(conflict('Idempotency key reused with a different request', 'IDEMPOTENCY_CONFLICT')),
    });
    expect(await grpcError(decide('approveWithdrawal', id))).toMatchObject({
      code: status.ALREADY_EXISTS,
      details:
        'The withdrawal is approved but the ledger refused to capture its funds: Idempotency key reused with a different request. It is not complete and will be retried',
      errorCode: 'LEDGER_REFUSED',
    });
    expect(await stack.balances(u)).toMatchObject({ profitCents: 20_000, withdrawalHoldCents: 10_000 });
    await stack.restart();
    await waitFor(async () => (await stack.balances(u)).withdrawalHoldCents === 0, 'captured');
    expect(await stack.balances(u)).toMatchObject({ profitCents: 20_000 });
  });
});
