/**
 * A decision the server fails says so in the screen's own text, for each of the two decisions, and the item
 * can be decided again (a retried rejection that succeeds says so): the KYC queue, a withdrawal's and an
 * investment's detail.
 */
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../test/fakeApi';
import { fakeApiEachTest } from '../../test/fakeApi';
import { clickThenSee, loggedInAs, renderApp } from '../../test/render';
import { admin } from '../../test/people';
import { pendingInvestment, pendingWithdrawal } from './moneyFixtures';

const server = fakeApiEachTest();

interface Case {
  screen: string;
  path: string;
  /** The item's GET and both decisions failing. */
  mocks: Record<string, Reply>;
  failures: Array<[button: string, text: string]>;
  /** The rejection answered again, now accepted. */
  retry?: { route: string; button: string; succeeded: string };
}

const CASES: Case[] = [
  {
    screen: '/pending-kyc',
    path: '/pending-kyc',
    mocks: {
      'GET users/kyc/pending': [
        200,
        {
          pendingUsers: [
            { _id: 'k1', name: 'Ada Lovelace', email: 'ada@example.com', kycStatus: 'Pending' },
            { _id: 'k2', name: 'Tim Berners', email: 'tim@example.com', kycStatus: 'Pending' },
          ],
        },
      ],
      'PATCH users/kyc/approve/k1': [500, {}],
      'PATCH users/kyc/reject/k1': [500, {}],
    },
    failures: [
      ['Approve KYC of Ada Lovelace', 'Error approving KYC. Try again!'],
      ['Reject KYC of Ada Lovelace', 'Error rejecting KYC. Try again!'],
    ],
    retry: {
      route: 'PATCH users/kyc/reject/k2',
      button: 'Reject KYC of Tim Berners',
      succeeded: 'KYC rejected successfully!',
    },
  },
  {
    screen: '/withdrawal/{id}',
    path: '/withdrawal/w1',
    mocks: {
      'GET withDraw/get-withdrawal/w1': [200, { withdrawal: pendingWithdrawal }],
      'PUT withDraw/approve/w1': [500, {}],
      'PUT withDraw/reject/w1': [500, {}],
    },
    failures: [
      ['Approve', 'Failed to approve withdrawal.'],
      ['Reject', 'Failed to reject withdrawal.'],
    ],
    retry: { route: 'PUT withDraw/reject/w1', button: 'Reject', succeeded: 'Withdrawal rejected!' },
  },
  {
    screen: '/investment/{id}',
    path: '/investment/i3',
    mocks: {
      'GET invest/investment/i3': [200, pendingInvestment],
      'PUT invest/i3/approve': [500, {}],
      'PUT invest/i3/reject': [500, {}],
    },
    failures: [
      ['Approve investment', 'Failed to approve the investment.'],
      ['Reject investment', 'Failed to reject the investment.'],
    ],
  },
];

describe.each(CASES)('$screen', ({ path, mocks, failures, retry }) => {
  it('says each failed decision in its own text, and a retried decision that succeeds', async () => {
    for (const [route, reply] of Object.entries(mocks)) server.on(route, reply);
    const { user } = renderApp(path, { preloadedState: loggedInAs(admin) });
    await clickThenSee(user, failures);
    if (!retry) return;
    server.on(retry.route, [200, {}]);
    await user.click(screen.getByRole('button', { name: retry.button }));
    expect(await screen.findByText(retry.succeeded)).toBeInTheDocument();
  });
});
