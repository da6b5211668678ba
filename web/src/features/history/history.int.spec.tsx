import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';
import { orderHistory } from './history';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => server.restore());

const items = [
  { _id: 'a', type: 'Transaction', amount: 1000, status: 'Confirmed', createdAt: '2026-03-01T10:00:00Z' },
  {
    _id: 'b',
    type: 'Investment',
    amount: 500,
    status: 'Active',
    plan: 'Starter',
    startDate: '2026-03-03T10:00:00Z',
    createdAt: '2026-01-01T00:00:00Z',
  },
  {
    _id: 'c',
    type: 'Withdrawal',
    amount: 75.5,
    status: 'Pending',
    walletAddress: '0xabc',
    requestDate: '2026-03-02T10:00:00Z',
  },
];

describe('transaction history', () => {
  it('orders by createdAt / startDate / requestDate, newest first', () => {
    expect(orderHistory(items).map((i) => i._id)).toEqual(['b', 'c', 'a']);
  });

  it('shows the typed items in order with dollars', async () => {
    server.on('GET invest/getTransactionHistory', [200, items]);
    renderApp('/transaction-History', { preloadedState: loggedInAs(aUser()) });
    const list = await screen.findByRole('list', { name: 'Transaction history' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((r) => r.getAttribute('data-type'))).toEqual(['Investment', 'Withdrawal', 'Transaction']);
    expect(within(rows[1]!).getByText('$75.50')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('$1,000.00')).toBeInTheDocument();
  });

  it("shows 'No records found.' when empty and 'Failed to fetch data.' on failure", async () => {
    server.on('GET invest/getTransactionHistory', [200, []]);
    const first = renderApp('/transaction-History', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('No records found.')).toBeInTheDocument();
    first.unmount();
    server.on('GET invest/getTransactionHistory', [500, {}]);
    renderApp('/transaction-History', { preloadedState: loggedInAs(aUser()) });
    expect((await screen.findAllByText('Failed to fetch data.')).length).toBeGreaterThan(0);
  });
});
