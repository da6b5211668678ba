/**
 * The admin queues and the histories load a page at a time: the first page when the screen
 * opens (`?limit=50`), the next one (`&cursor=` the X-Next-Cursor of the last) when the end of the list
 * scrolls into view, until no cursor comes back; live pushes still add and remove queue items, and the
 * spec's texts stay.
 */
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { stubIntersectionObserver } from '../../test/intersection';
import { aUser, loggedInAs, pushLive, renderApp } from '../../test/render';
import { ada, admin } from '../../test/people';

let server: ReturnType<typeof fakeApi>;
let scroll: ReturnType<typeof stubIntersectionObserver>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
  scroll = stubIntersectionObserver();
});
afterEach(() => {
  server.restore();
  vi.unstubAllGlobals();
});

const deposit = (id: string, amount: number) => ({
  _id: id,
  transactionId: id,
  amount,
  status: 'Pending',
  createdAt: '2026-03-04T14:05:00Z',
  user: ada,
});

describe('admin queues page on scroll', () => {
  it('loads the next page of pending deposits at the end of the list; live items still come and go', async () => {
    server.on('GET payments/pending-deposit', ({ url }) =>
      url.includes('cursor=c1')
        ? [200, { deposit: [deposit('t3', 3), deposit('t9', 9)] }]
        : [200, { deposit: [deposit('t1', 1), deposit('t2', 2)] }, { 'x-next-cursor': 'c1' }],
    );
    const { store } = renderApp('/admin-pending-deposit', { preloadedState: loggedInAs(admin) });
    const list = await screen.findByRole('list', { name: 'Pending deposits' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);
    expect(screen.getByTestId('queue-more')).toBeInTheDocument();

    // a deposit pushed live before its page was loaded is shown once
    pushLive(store, {
      event: 'queue/itemAdded',
      payload: { queue: 'deposits', item: deposit('t9', 9), position: '1' },
    });
    expect(await within(list).findByText('$9.00')).toBeInTheDocument();

    await scroll.scrollToEnd();
    expect(await within(list).findByText('$3.00')).toBeInTheDocument();
    expect(within(list).getAllByText('$9.00')).toHaveLength(1);
    expect(server.callsTo('GET payments/pending-deposit').map((c) => c.url)).toEqual([
      'payments/pending-deposit?limit=50',
      'payments/pending-deposit?limit=50&cursor=c1',
    ]);
    // the last page: no sentinel
    await waitFor(() => expect(screen.queryByTestId('queue-more')).not.toBeInTheDocument());

    pushLive(store, {
      event: 'queue/itemDecided',
      payload: { queue: 'deposits', id: 't1', status: 'Confirmed', position: '2' },
    });
    await waitFor(() => expect(within(list).queryByText('$1.00')).not.toBeInTheDocument());
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
  });

  it('fetches the first page alone again when the gateway asks for a resync', async () => {
    server.on('GET payments/pending-deposit', ({ url }) =>
      url.includes('cursor=c1')
        ? [200, { deposit: [deposit('t3', 3)] }]
        : [200, { deposit: [deposit('t1', 1)] }, { 'x-next-cursor': 'c1' }],
    );
    const { store } = renderApp('/admin-pending-deposit', { preloadedState: loggedInAs(admin) });
    const list = await screen.findByRole('list', { name: 'Pending deposits' });
    await scroll.scrollToEnd();
    expect(await within(list).findByText('$3.00')).toBeInTheDocument();

    pushLive(store, { event: 'live/resync', payload: { reason: 'not-replayed' } });
    await waitFor(() => expect(within(list).queryByText('$3.00')).not.toBeInTheDocument());
    expect(within(list).getByText('$1.00')).toBeInTheDocument();
    expect(screen.getByTestId('queue-more')).toBeInTheDocument();
    expect(server.callsTo('GET payments/pending-deposit').map((c) => c.url)).toEqual([
      'payments/pending-deposit?limit=50',
      'payments/pending-deposit?limit=50&cursor=c1',
      'payments/pending-deposit?limit=50',
    ]);
  });

  it('pages the pending withdrawals, investments and KYC queues the same way', async () => {
    const withdrawal = (id: string) => ({
      _id: id,
      amount: 60,
      status: 'Pending',
      requestDate: '2026-03-04T14:05:00Z',
      walletAddress: '0xabc',
      user: ada,
    });
    server.on('GET withDraw/pending', ({ url }) =>
      url.includes('cursor=w1')
        ? [200, { withdrawals: [withdrawal('w-2')] }]
        : [200, { withdrawals: [withdrawal('w-1')] }, { 'x-next-cursor': 'w1' }],
    );
    const first = renderApp('/admin-pending-wallet', { preloadedState: loggedInAs(admin) });
    await screen.findByText('Pending withdrawals fetched successfully');
    await scroll.scrollToEnd();
    await waitFor(() =>
      expect(server.callsTo('GET withDraw/pending').map((c) => c.url)).toEqual([
        'withDraw/pending?limit=50',
        'withDraw/pending?limit=50&cursor=w1',
      ]),
    );
    first.unmount();

    server.on('GET users/kyc/pending', ({ url }) =>
      url.includes('cursor=k1')
        ? [
            200,
            {
              pendingUsers: [
                { _id: 'k-2', name: 'Grace Hopper', email: 'g@example.com', kycStatus: 'Pending' },
              ],
            },
          ]
        : [
            200,
            {
              pendingUsers: [
                { _id: 'k-1', name: 'Ada Lovelace', email: 'a@example.com', kycStatus: 'Pending' },
              ],
            },
            { 'x-next-cursor': 'k1' },
          ],
    );
    const kyc = renderApp('/pending-kyc', { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText('Ada Lovelace')).toBeInTheDocument();
    await scroll.scrollToEnd();
    expect(await screen.findByText('Grace Hopper')).toBeInTheDocument();
    kyc.unmount();

    server.on('GET invest/adminPendingInvestment', ({ url }) =>
      url.includes('cursor=i1')
        ? [200, { pendingInvestments: [] }]
        : [200, { pendingInvestments: [] }, { 'x-next-cursor': 'i1' }],
    );
    renderApp('/admin-pending-investment', { preloadedState: loggedInAs(admin) });
    // an empty first page with more to come: the sentinel loads on, then the spec's empty text
    await waitFor(() => expect(server.callsTo('GET invest/adminPendingInvestment')).toHaveLength(1));
    await scroll.scrollToEnd();
    await waitFor(() => expect(server.callsTo('GET invest/adminPendingInvestment')).toHaveLength(2));
  });
});

describe('histories page on scroll', () => {
  it('/transaction-History loads older items as the user scrolls; empty stays "No records found."', async () => {
    server.on('GET invest/getTransactionHistory', ({ url }) =>
      url.includes('cursor=h1')
        ? [
            200,
            {
              history: [
                {
                  _id: 'old',
                  type: 'Transaction',
                  amount: 11,
                  status: 'Confirmed',
                  createdAt: '2026-01-01T10:00:00Z',
                },
              ],
            },
          ]
        : [
            200,
            {
              history: [
                {
                  _id: 'new',
                  type: 'Transaction',
                  amount: 22,
                  status: 'Pending',
                  createdAt: '2026-03-01T10:00:00Z',
                },
              ],
            },
            { 'x-next-cursor': 'h1' },
          ],
    );
    const first = renderApp('/transaction-History', { preloadedState: loggedInAs(aUser()) });
    const list = await screen.findByRole('list', { name: 'Transaction history' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
    await scroll.scrollToEnd();
    expect(await within(list).findByText('$11.00')).toBeInTheDocument();
    expect(server.callsTo('GET invest/getTransactionHistory').map((c) => c.url)).toEqual([
      'invest/getTransactionHistory?limit=50',
      'invest/getTransactionHistory?limit=50&cursor=h1',
    ]);
    await waitFor(() => expect(screen.queryByTestId('history-more')).not.toBeInTheDocument());
    first.unmount();

    server.on('GET invest/getTransactionHistory', [200, { history: [] }]);
    renderApp('/transaction-History', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('No records found.')).toBeInTheDocument();
  });

  it('/invest-status loads the next page of investments as the user scrolls', async () => {
    const inv = (id: string, plan: string) => ({
      _id: id,
      investmentId: id,
      plan,
      amount: 100,
      status: 'Active',
    });
    server.on('GET invest/investment-history', ({ url }) =>
      url.includes('cursor=v1')
        ? [200, { investments: [inv('i-2', 'Gold')] }]
        : [200, { investments: [inv('i-1', 'Starter')] }, { 'x-next-cursor': 'v1' }],
    );
    renderApp('/invest-status', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('Starter plan')).toBeInTheDocument();
    await scroll.scrollToEnd();
    expect(await screen.findByText('Gold plan')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('investments-more')).not.toBeInTheDocument());
  });
});
