/**
 * Every admin queue screen: an empty queue says so, an item pushed live (queue/itemAdded) appears, and it
 * leaves when any admin decides it (queue/itemDecided), so the queue is empty again; a fetch that fails
 * shows the server's message, or the screen's own text when there is none.
 */
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { loggedInAs, pushLive, renderApp } from '../../test/render';
import { ada, admin } from '../../test/people';

const server = fakeApiEachTest();

describe.each([
  {
    path: '/admin-pending-deposit',
    route: 'GET payments/pending-deposit',
    emptyAnswer: { deposit: [] },
    failure: [500, 'Ledger unavailable'],
    fallback: 'Failed to fetch pending deposits.',
    emptyText: 'No pending deposits found.',
    added: {
      queue: 'deposits',
      item: { transactionId: 't9', amount: 700, status: 'Pending', user: ada },
      position: '1',
    },
    decided: { queue: 'deposits', id: 't9', status: 'Confirmed', position: '2' },
    shown: () => screen.findByText('$700.00'),
  },
  {
    path: '/admin-pending-wallet',
    route: 'GET withDraw/pending',
    emptyAnswer: { withdrawals: [] },
    failure: [403, 'Not authorized as an admin'],
    fallback: 'Failed to fetch pending withdrawals.',
    emptyText: 'No pending withdrawals found.',
    added: { queue: 'withdrawals', item: { _id: 'w5', user: ada, amount: 75, status: 'Pending' } },
    decided: { queue: 'withdrawals', id: 'w5', status: 'Approved' },
    shown: () => screen.findByText('$75.00'),
  },
  {
    path: '/pending-kyc',
    route: 'GET users/kyc/pending',
    emptyAnswer: { pendingUsers: [] },
    failure: [503, 'Identity unavailable'],
    fallback: 'Failed to fetch pending KYC requests.',
    emptyText: 'No pending requests.',
    added: {
      queue: 'kyc',
      item: {
        _id: 'k1',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        kycStatus: 'Pending',
        kyc: { frontDoc: '/api/users/kyc/documents/k1/front', backDoc: '/api/users/kyc/documents/k1/back' },
      },
    },
    decided: { queue: 'kyc', id: 'k1', status: 'Approved' },
    shown: () => screen.findByRole('listitem', { name: 'KYC of Ada Lovelace' }),
  },
] as const)('$path', ({ path, route, emptyAnswer, failure, fallback, emptyText, added, decided, shown }) => {
  it(`shows '${emptyText}', then an item that arrives live, which leaves when decided`, async () => {
    server.on(route, [200, emptyAnswer]);
    const { store } = renderApp(path, { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText(emptyText)).toBeInTheDocument();
    pushLive(store, { event: 'queue/itemAdded', payload: added });
    expect(await shown()).toBeInTheDocument();
    pushLive(store, { event: 'queue/itemDecided', payload: decided });
    expect(await screen.findByText(emptyText)).toBeInTheDocument();
  });

  it('shows the server message when the fetch fails', async () => {
    const [status, message] = failure;
    server.on(route, [status, { message }]);
    renderApp(path, { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText(message)).toBeInTheDocument();
  });

  it(`falls back to '${fallback}' when the server gives no message`, async () => {
    server.on(route, [500, {}]);
    renderApp(path, { preloadedState: loggedInAs(admin) });
    expect((await screen.findAllByText(fallback)).length).toBeGreaterThan(0);
  });
});
