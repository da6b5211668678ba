/**
 * Maker-checker on the admin screens (issue 11, finding 5): the pending queues say who initiated an item
 * when it was not its owner (an admin acting as the user), and a refused decision says why (the server's
 * message, e.g. that another admin must review the admin's own request) beside the usual failure text.
 */
import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => {
  server.restore();
});

const admin = aUser({ _id: 'admin-1', role: 'admin' });
const ada = { _id: 'u-2', name: 'Ada Lovelace', email: 'ada@example.com' };
const grace = { _id: 'admin-7', name: 'Grace Admin', email: 'grace@example.com' };
const own = (noun: string) =>
  `You cannot decide your own ${noun}: another admin must review it (if you are the only admin, a second admin is needed)`;

describe('the pending queues show who initiated an item that its owner did not', () => {
  it('deposits', async () => {
    server.on('GET payments/pending-deposit', [
      200,
      {
        deposit: [
          { transactionId: 't1', amount: 10, status: 'Pending', user: ada, initiatedBy: grace },
          { transactionId: 't2', amount: 20, status: 'Pending', user: ada },
        ],
      },
    ]);
    renderApp('/admin-pending-deposit', { preloadedState: loggedInAs(admin) });
    const list = await screen.findByRole('list', { name: 'Pending deposits' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(within(first!).getByText('Initiated by')).toBeInTheDocument();
    expect(within(first!).getByText('Grace Admin (grace@example.com)')).toBeInTheDocument();
    expect(within(second!).queryByText('Initiated by')).not.toBeInTheDocument();
  });

  it('investments', async () => {
    server.on('GET invest/adminPendingInvestment', [
      200,
      {
        pendingInvestments: [
          { _id: 'i1', plan: 'Gold', status: 'pending', amount: 6000, user: ada, initiatedBy: grace },
        ],
      },
    ]);
    renderApp('/admin-pending-investment', { preloadedState: loggedInAs(admin) });
    const item = await screen.findByRole('listitem', { name: /Gold/ });
    expect(within(item).getByText('Grace Admin (grace@example.com)')).toBeInTheDocument();
  });

  it('withdrawals', async () => {
    server.on('GET withDraw/pending', [
      200,
      {
        withdrawals: [
          {
            _id: 'w1',
            amount: 75,
            status: 'Pending',
            walletAddress: '0xabc',
            user: ada,
            initiatedBy: 'admin-7',
          },
        ],
      },
    ]);
    renderApp('/admin-pending-wallet', { preloadedState: loggedInAs(admin) });
    const list = await screen.findByRole('list', { name: 'Pending withdrawals' });
    expect(within(list).getByText('Initiated by')).toBeInTheDocument();
    expect(within(list).getByText('admin-7')).toBeInTheDocument();
  });
});

describe('a refused decision says why', () => {
  it('a deposit', async () => {
    server.on('GET payments/viewPaymentStatus/t1', [
      200,
      { transactionId: 't1', amount: 15, status: 'Pending', user: ada },
    ]);
    server.on('PATCH payments/confirmPayment', [403, { message: own('deposit') }]);
    const { user } = renderApp('/transaction/t1', { preloadedState: loggedInAs(admin) });
    await user.click(await screen.findByRole('button', { name: 'Confirm payment' }));
    expect(await screen.findByText('Failed to confirm payment')).toBeInTheDocument();
    expect(await screen.findByText(own('deposit'))).toBeInTheDocument();
  });

  it('an investment in the queue', async () => {
    server.on('GET invest/adminPendingInvestment', [
      200,
      { pendingInvestments: [{ _id: 'i1', plan: 'Gold', status: 'pending', amount: 6000, user: ada }] },
    ]);
    server.on('PUT invest/i1/approve', [403, { message: own('investment') }]);
    const { user } = renderApp('/admin-pending-investment', { preloadedState: loggedInAs(admin) });
    const item = await screen.findByRole('listitem', { name: /Gold/ });
    await user.click(within(item).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('Failed to approve the investment.')).toBeInTheDocument();
    expect(await screen.findByText(own('investment'))).toBeInTheDocument();
  });

  it('a withdrawal', async () => {
    server.on('GET withDraw/get-withdrawal/w1', [
      200,
      { _id: 'w1', user: 'Ada Lovelace', amount: 250, walletAddress: '0xabc', status: 'Pending' },
    ]);
    server.on('PUT withDraw/approve/w1', [403, { message: own('withdrawal') }]);
    const { user } = renderApp('/withdrawal/w1', { preloadedState: loggedInAs(admin) });
    await user.click(await screen.findByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('Failed to approve withdrawal.')).toBeInTheDocument();
    expect(await screen.findByText(own('withdrawal'))).toBeInTheDocument();
  });

  it('a KYC case', async () => {
    server.on('GET users/kyc/pending', [
      200,
      { pendingUsers: [{ _id: 'admin-1', name: 'Me Admin', email: 'me@example.com', kycStatus: 'Pending' }] },
    ]);
    server.on('PATCH users/kyc/approve/admin-1', [403, { message: own('KYC case') }]);
    const { user } = renderApp('/pending-kyc', { preloadedState: loggedInAs(admin) });
    await user.click(await screen.findByRole('button', { name: 'Approve KYC of Me Admin' }));
    expect(await screen.findByText('Error approving KYC. Try again!')).toBeInTheDocument();
    expect(await screen.findByText(own('KYC case'))).toBeInTheDocument();
  });
});
