/**
 * Maker-checker on the admin screens: the pending queues say who initiated an item
 * when it was not its owner (an admin acting as the user), and a refused decision says why (the server's
 * message, e.g. that another admin must review the admin's own request) beside the usual failure text.
 */
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { loggedInAs, renderApp } from '../../test/render';
import { ada, admin } from '../../test/people';

const server = fakeApiEachTest();

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
  type Case = {
    noun: string;
    mocks: Record<string, [number, unknown]>;
    path: string;
    button: string;
    failed: string;
  };
  const cases: Case[] = [
    {
      noun: 'deposit',
      mocks: {
        'GET payments/viewPaymentStatus/t1': [
          200,
          { transactionId: 't1', amount: 15, status: 'Pending', user: ada },
        ],
        'PATCH payments/confirmPayment': [403, { message: own('deposit') }],
      },
      path: '/transaction/t1',
      button: 'Confirm payment',
      failed: 'Failed to confirm payment',
    },
    {
      noun: 'investment',
      mocks: {
        'GET invest/adminPendingInvestment': [
          200,
          { pendingInvestments: [{ _id: 'i1', plan: 'Gold', status: 'pending', amount: 6000, user: ada }] },
        ],
        'PUT invest/i1/approve': [403, { message: own('investment') }],
      },
      path: '/admin-pending-investment',
      button: 'Approve',
      failed: 'Failed to approve the investment.',
    },
    {
      noun: 'withdrawal',
      mocks: {
        'GET withDraw/get-withdrawal/w1': [
          200,
          { _id: 'w1', user: 'Ada Lovelace', amount: 250, walletAddress: '0xabc', status: 'Pending' },
        ],
        'PUT withDraw/approve/w1': [403, { message: own('withdrawal') }],
      },
      path: '/withdrawal/w1',
      button: 'Approve',
      failed: 'Failed to approve withdrawal.',
    },
    {
      noun: 'KYC case',
      mocks: {
        'GET users/kyc/pending': [
          200,
          {
            pendingUsers: [
              { _id: 'admin-1', name: 'Me Admin', email: 'me@example.com', kycStatus: 'Pending' },
            ],
          },
        ],
        'PATCH users/kyc/approve/admin-1': [403, { message: own('KYC case') }],
      },
      path: '/pending-kyc',
      button: 'Approve KYC of Me Admin',
      failed: 'Error approving KYC. Try again!',
    },
  ];

  it.each(cases)('$noun: the failure text and the reason', async (c) => {
    for (const [route, answer] of Object.entries(c.mocks)) server.on(route, answer);
    const { user } = renderApp(c.path, { preloadedState: loggedInAs(admin) });
    await user.click(await screen.findByRole('button', { name: c.button }));
    expect(await screen.findByText(c.failed)).toBeInTheDocument();
    expect(await screen.findByText(own(c.noun))).toBeInTheDocument();
  });
});
