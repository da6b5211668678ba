import { act, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../app/apiClient';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';
import { eventReceived } from '../live/liveSlice';
import { LIVE_EVENTS } from '../live/liveEvents';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({
    'GET users/loginStatus': [200, true],
    'GET invest/deposit-maturity': [200, {}],
    'GET invest/investment-history': [200, []],
    'GET invest/getTransactionHistory': [200, []],
  });
});
afterEach(() => server.restore());

describe('investor dashboard: investments to maturity and growth over time', () => {
  it('shows each active investment as a progress bar with its value now and the projected amount', async () => {
    const ada = aUser();
    server.on('GET users/getUser', [200, ada]);
    const now = Date.now();
    server.on('GET invest/investment-history', [
      200,
      [
        {
          _id: 'inv-1',
          plan: 'Silver',
          status: 'Active',
          amount: 2000,
          maturityAmount: 2300,
          startDate: iso(now - 4 * DAY),
          endDate: iso(now + 6 * DAY),
        },
        { _id: 'inv-2', plan: 'Gold', status: 'pending', amount: 5000, maturityAmount: 5900 },
      ],
    ]);
    renderApp('/dashboard', { preloadedState: loggedInAs(ada) });

    const bar = await screen.findByRole('progressbar', {
      name: 'Silver investment of $2,000.00 to maturity',
    });
    expect(bar).toHaveAttribute('aria-valuemin', '0');
    expect(bar).toHaveAttribute('aria-valuemax', '100');
    expect(Number(bar.getAttribute('aria-valuenow'))).toBe(40);
    expect(bar.getAttribute('aria-valuetext')).toMatch(
      /^40% of the term: worth \$2,120\.00 now, \$2,300\.00 at maturity on /,
    );
    const item = bar.closest('li')!;
    expect(within(item).getByText('Value now').nextSibling).toHaveTextContent('$2,120.00');
    expect(within(item).getByText('Projected at maturity').nextSibling).toHaveTextContent('$2,300.00');
    // only Active investments get a bar
    expect(screen.getAllByRole('progressbar')).toHaveLength(1);

    const table = screen.getByRole('table', { name: 'Total Investment and Total Profit over time' });
    const rows = within(table).getAllByRole('row');
    expect(
      within(rows[0]!)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Date', 'Total Investment', 'Total Profit']);
    expect(
      within(rows[1]!)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['$2,000.00', '$0.00']);
  });

  it('keeps the table for screen readers and shows it on request', async () => {
    const ada = aUser();
    server.on('GET users/getUser', [200, ada]);
    server.on('GET invest/getTransactionHistory', [
      200,
      [{ type: 'Withdrawal', amount: 10, status: 'Approved', requestDate: iso(Date.now() - DAY) }],
    ]);
    const { user } = renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    const toggle = await screen.findByRole('button', { name: 'Show as a table' });
    const table = screen.getByRole('table', { name: 'Total Investment and Total Profit over time' });
    expect(table.parentElement).toHaveClass('visually-hidden');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(table.parentElement).not.toHaveClass('visually-hidden');
    expect(screen.getByRole('button', { name: 'Hide the table' })).toHaveAttribute('aria-expanded', 'true');
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent('-$10.00');
  });

  it('says so when there is no active investment', async () => {
    const ada = aUser();
    server.on('GET users/getUser', [200, ada]);
    renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    expect(await screen.findByText(/No active investment yet/)).toBeInTheDocument();
    expect(screen.getByText('Nothing to draw yet.')).toBeInTheDocument();
  });

  it('fetches again when one of its investments changes status live', async () => {
    const ada = aUser();
    server.on('GET users/getUser', [200, ada]);
    const { store } = renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    await screen.findByText(/No active investment yet/);
    const now = Date.now();
    server.on('GET invest/investment-history', [
      200,
      [
        {
          _id: 'inv-9',
          plan: 'Bronze',
          status: 'Active',
          amount: 600,
          maturityAmount: 690,
          startDate: iso(now),
          endDate: iso(now + DAY),
        },
      ],
    ]);
    act(() => {
      store.dispatch(
        eventReceived({
          event: LIVE_EVENTS.statusChanged,
          payload: { kind: 'investment', id: 'inv-9', status: 'Active' },
        }),
      );
    });
    expect(
      await screen.findByRole('progressbar', { name: 'Bronze investment of $600.00 to maturity' }),
    ).toBeInTheDocument();
  });
});

describe('admin dashboard: live queue sizes and money flow of today', () => {
  const deposit = (id: string, amount: number) => ({
    _id: id,
    transactionId: id,
    amount,
    status: 'Pending',
    createdAt: iso(Date.now()),
    user: { _id: 'u1', name: 'Ada', email: 'ada@example.com' },
  });
  const auditCalls: string[] = [];

  /** Today's audit trail: one deposit ($100.01) and one withdrawal ($20.00) decided before the page opened. */
  function auditAnswer(url: string): unknown {
    auditCalls.push(url);
    const action = new URLSearchParams(url.slice(url.indexOf('?') + 1)).get('action');
    const entries =
      action === 'DepositConfirmed'
        ? [{ details: JSON.stringify({ depositId: 'old', userId: 'u', amountCents: 10_001 }) }]
        : action === 'WithdrawalApproved'
          ? [{ details: JSON.stringify({ withdrawalId: 'w0', userId: 'u', amountCents: 2_000 }) }]
          : [];
    return { entries, nextCursor: '' };
  }

  function adminDashboard() {
    const admin = aUser({ role: 'admin' });
    server.on('GET users/getUser', [200, admin]);
    server.on('GET payments/pending-deposit', [200, { deposit: [deposit('d1', 250.5)] }]);
    server.on('GET invest/adminPendingInvestment', [200, { pendingInvestments: [] }]);
    server.on('GET withDraw/pending', [200, { withdrawals: [] }]);
    server.on('GET users/kyc/pending', [200, { pendingUsers: [{ _id: 'k1', name: 'Kim' }, { _id: 'k2' }] }]);
    // the audit calls carry a query string: answered by prefix in front of the fake routes
    const routes = api.defaults.adapter;
    api.defaults.adapter = async (req) =>
      req.url.startsWith('admin/audit')
        ? { data: auditAnswer(req.url), status: 200, config: req }
        : routes(req);
    return renderApp('/dashboard', { preloadedState: loggedInAs(admin) });
  }

  const push = (store: { dispatch: (a: unknown) => unknown }, event: string, payload: unknown) =>
    act(() => {
      store.dispatch(eventReceived({ event, payload }));
    });

  it('counts every queue, moves with the pushes and adds decided amounts to today in exact cents', async () => {
    auditCalls.length = 0;
    const { store } = adminDashboard();
    await vi.waitFor(() => expect(screen.getByTestId('queue-deposits')).toHaveTextContent('1'));
    expect(screen.getByTestId('queue-kyc')).toHaveTextContent('2');
    expect(screen.getByTestId('queue-investments')).toHaveTextContent('0');
    expect(screen.getByRole('link', { name: 'Deposits waiting: 1' })).toHaveAttribute(
      'href',
      '/admin-pending-deposit',
    );
    await vi.waitFor(() => expect(screen.getByTestId('flow-withdrawals')).toHaveTextContent('$20.00'));
    expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$100.01');
    expect(screen.getByTestId('flow-investments')).toHaveTextContent('$0.00');
    expect(auditCalls.every((u) => /[?&]from=\d{4}-\d\d-\d\dT/.test(u))).toBe(true);

    push(store, LIVE_EVENTS.queueItemAdded, { queue: 'deposits', item: deposit('d2', 0.1) });
    expect(screen.getByTestId('queue-deposits')).toHaveTextContent('2');

    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd1', status: 'Confirmed' });
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd2', status: 'Confirmed' });
    expect(screen.getByTestId('queue-deposits')).toHaveTextContent('0');
    // $100.01 + $250.50 + $0.10 in cents: no float drift
    expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$350.61');

    // a replayed decision is not counted twice; a rejection is not money in
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd2', status: 'Confirmed' });
    push(store, LIVE_EVENTS.queueItemAdded, { queue: 'deposits', item: deposit('d3', 5) });
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd3', status: 'Rejected' });
    expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$350.61');
    expect(screen.getByTestId('queue-deposits')).toHaveTextContent('0');
  });

  it('adds an approved investment with the amount it was requested for', async () => {
    const { store } = adminDashboard();
    await vi.waitFor(() => expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$100.01'));
    push(store, LIVE_EVENTS.queueItemAdded, {
      queue: 'investments',
      item: { _id: 'i1', investmentId: 'i1', plan: 'Bronze', amount: 600, status: 'pending' },
    });
    expect(screen.getByTestId('queue-investments')).toHaveTextContent('1');
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'investments', id: 'i1', status: 'Active' });
    expect(screen.getByTestId('queue-investments')).toHaveTextContent('0');
    expect(screen.getByTestId('flow-investments')).toHaveTextContent('$600.00');
  });
});
