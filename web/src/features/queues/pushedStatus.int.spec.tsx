/**
 * A money record's open detail shows a status another admin decided as it is pushed (status/changed), without
 * asking the server again, and no longer offers its decisions.
 */
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { loggedInAs, pushLive, renderApp } from '../../test/render';
import { admin, pendingDeposit } from '../../test/people';
import { pendingWithdrawal } from './moneyFixtures';

const server = fakeApiEachTest();

describe.each([
  {
    path: '/transaction/t1',
    route: 'GET payments/viewPaymentStatus/t1',
    record: pendingDeposit,
    button: 'Confirm payment',
    pushed: { kind: 'deposit', id: 't1', status: 'Rejected', position: '3' },
    // the status shows once, in the badge
    statusShown: async () => expect(await screen.findByText('Rejected')).toBeInTheDocument(),
  },
  {
    path: '/withdrawal/w1',
    route: 'GET withDraw/get-withdrawal/w1',
    record: pendingWithdrawal,
    button: 'Approve',
    pushed: { kind: 'withdrawal', id: 'w1', status: 'Approved', position: '4' },
    statusShown: async () => expect((await screen.findAllByText('Approved')).length).toBeGreaterThan(0),
  },
])('$path', ({ path, route, record, button, pushed, statusShown }) => {
  it('shows a status decided elsewhere as it is pushed, without another GET, and drops the buttons', async () => {
    server.on(route, [200, record]);
    const { store } = renderApp(path, { preloadedState: loggedInAs(admin) });
    expect(await screen.findByRole('button', { name: button })).toBeInTheDocument();
    pushLive(store, { event: 'status/changed', payload: pushed });
    await statusShown();
    expect(screen.queryByRole('button', { name: button })).not.toBeInTheDocument();
    expect(server.callsTo(route)).toHaveLength(1);
  });
});
