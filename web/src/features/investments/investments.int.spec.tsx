import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { aUser, loggedInAs, pushLive, renderApp } from '../../test/render';
import { ada, admin } from '../../test/people';
import { formatDateTime } from '../../ui/dates';
import { pendingInvestment } from '../queues/moneyFixtures';

const server = fakeApiEachTest();

const plans = [
  { _id: 'p1', name: 'Starter', minAmount: 100, maxAmount: 500 },
  { _id: 'p2', name: 'Gold', minAmount: 5000, maxAmount: 10000 },
];

describe('/start-invest', () => {
  it('loads plans with their ranges and asks for a plan first', async () => {
    server.on('GET invest/plans', [200, plans]);
    const { user } = renderApp('/start-invest', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('$5,000 – $10,000')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Amount (USD)'), '300');
    await user.click(screen.getByRole('button', { name: 'Invest' }));
    expect(screen.getByText('Please select an investment plan.')).toBeInTheDocument();
    expect(server.callsTo('POST invest/start-invest')).toHaveLength(0);
  });

  it("toasts 'Failed to fetch investment plans.' when plans fail", async () => {
    server.on('GET invest/plans', [500, {}]);
    renderApp('/start-invest', { preloadedState: loggedInAs(aUser()) });
    expect((await screen.findAllByText('Failed to fetch investment plans.')).length).toBeGreaterThan(0);
  });
});

describe('/invest-status', () => {
  it("shows 'No investment at all' when empty", async () => {
    server.on('GET invest/investment-history', [200, []]);
    renderApp('/invest-status', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('No investment at all')).toBeInTheDocument();
  });

  it('styles only Active as active and links each to its detail; statuses update live', async () => {
    server.on('GET invest/investment-history', [
      200,
      [
        {
          _id: 'i1',
          plan: 'Gold',
          status: 'Active',
          amount: 6000,
          maturityAmount: 7200,
          startDate: '2026-03-01T00:00:00Z',
          endDate: '2026-03-08T00:00:00Z',
        },
        { _id: 'i2', plan: 'Starter', status: 'active', amount: 100, maturityAmount: null },
        { investmentId: 'i3', plan: { name: 'Silver' }, status: 'pending', amount: 2000 },
      ],
    ]);
    const { store } = renderApp('/invest-status', { preloadedState: loggedInAs(aUser()) });
    const list = await screen.findByRole('list', { name: 'Investments' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows[0]).toHaveClass('record--active');
    expect(rows[1]).not.toHaveClass('record--active');
    expect(rows[2]).not.toHaveClass('record--active');
    expect(within(rows[0]!).getByText('$6,000.00')).toBeInTheDocument();
    expect(within(rows[0]!).getByText(/\$7,200\.00/)).toBeInTheDocument();
    expect(within(rows[2]!).getByRole('link')).toHaveAttribute('href', '/investment/i3');
    pushLive(store, {
      event: 'status/changed',
      payload: { kind: 'investment', id: 'i3', status: 'Active' },
    });
    expect(within(list).getAllByRole('listitem')[2]).toHaveClass('record--active');
  });
});

describe('/investment/:investmentId', () => {
  const pendingOne = pendingInvestment;

  it('lets an admin approve a pending investment', async () => {
    let status = 'pending';
    server.on('GET invest/investment/i3', () => [200, { ...pendingOne, status }]);
    server.on('PUT invest/i3/approve', () => {
      status = 'Active';
      return [200, { message: 'Investment approved' }];
    });
    const { user } = renderApp('/investment/i3', { preloadedState: loggedInAs(admin) });
    await user.click(await screen.findByRole('button', { name: 'Approve investment' }));
    expect(await screen.findByText('Investment approved')).toBeInTheDocument();
    expect(await screen.findByText('Active')).toBeInTheDocument();
    expect(screen.getByText('$2,400.00')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reject investment' })).not.toBeInTheDocument();
  });

  it('labels the dates of a pending investment as projected, and the approved ones plainly', async () => {
    let answer: Record<string, unknown> = {
      ...pendingOne,
      startDate: '2026-03-01T10:00:00Z',
      endDate: '2026-03-08T10:00:00Z',
      datesProjected: true,
    };
    server.on('GET invest/investment/i3', () => [200, answer]);
    server.on('PUT invest/i3/approve', () => {
      answer = { ...answer, status: 'Active', datesProjected: false };
      return [200, { message: 'Investment approved' }];
    });
    const { user } = renderApp('/investment/i3', { preloadedState: loggedInAs(admin) });
    const start = formatDateTime('2026-03-01T10:00:00Z');
    const end = formatDateTime('2026-03-08T10:00:00Z');
    expect(await screen.findByText(`${start} (projected)`)).toBeInTheDocument();
    expect(screen.getByText(`${end} (projected)`)).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Approve investment' }));
    expect(await screen.findByText('Active')).toBeInTheDocument();
    expect(screen.getByText(start)).toBeInTheDocument();
    expect(screen.getByText(end)).toBeInTheDocument();
  });

  it('offers no decision to a subscriber', async () => {
    server.on('GET invest/investment/i3', [200, pendingOne]);
    renderApp('/investment/i3', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('$2,000.00')).toBeInTheDocument();
    expect(screen.getByText('$2,400.00 (projected)')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Approve investment' })).not.toBeInTheDocument();
  });
});

describe('/admin-pending-investment', () => {
  it('removes an item when approved or rejected, and shows live additions', async () => {
    server.on('GET invest/adminPendingInvestment', [
      200,
      {
        pendingInvestments: [
          { _id: 'i1', plan: 'Gold', status: 'pending', amount: 6000, maturityAmount: 7200, user: ada },
          { _id: 'i2', plan: 'Starter', status: 'pending', amount: 150, maturityAmount: 168, user: ada },
        ],
      },
    ]);
    server.on('PUT invest/i1/approve', [200, { message: 'Investment approved' }]);
    server.on('PUT invest/i2/reject', [500, {}]);
    const { user, store } = renderApp('/admin-pending-investment', { preloadedState: loggedInAs(admin) });
    const list = await screen.findByRole('list', { name: 'Pending investments' });
    // the projected maturity amount of each request
    expect(
      within(within(list).getByRole('listitem', { name: /Gold/ })).getByText('$7,200.00 (projected)'),
    ).toBeInTheDocument();
    await user.click(
      within(within(list).getByRole('listitem', { name: /Gold/ })).getByRole('button', { name: 'Approve' }),
    );
    expect(await screen.findByText('Investment approved')).toBeInTheDocument();
    expect(within(list).queryByRole('listitem', { name: /Gold/ })).not.toBeInTheDocument();
    await user.click(
      within(within(list).getByRole('listitem', { name: /Starter/ })).getByRole('button', { name: 'Reject' }),
    );
    expect(await screen.findByText('Failed to reject the investment.')).toBeInTheDocument();
    expect(within(list).getByRole('listitem', { name: /Starter/ })).toBeInTheDocument();
    pushLive(store, {
      event: 'queue/itemAdded',
      payload: {
        queue: 'investments',
        item: { _id: 'i9', plan: 'Diamond', status: 'pending', amount: 20000, user: ada },
      },
    });
    expect(await screen.findByText('$20,000.00')).toBeInTheDocument();
    pushLive(store, {
      event: 'queue/itemDecided',
      payload: { queue: 'investments', id: 'i2', status: 'Rejected' },
    });
    // the cache tells the screen on the next frame (RTK Query batches its cache updates)
    await waitFor(() =>
      expect(within(list).queryByRole('listitem', { name: /Starter/ })).not.toBeInTheDocument(),
    );
  });

  it('shows an empty state', async () => {
    server.on('GET invest/adminPendingInvestment', [200, { pendingInvestments: [] }]);
    renderApp('/admin-pending-investment', { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText('No pending investments found.')).toBeInTheDocument();
  });
});
