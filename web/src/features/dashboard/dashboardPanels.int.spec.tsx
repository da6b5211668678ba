import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../app/apiClient';
import { EMPTY_DASHBOARD, fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, pushLive, renderApp } from '../../test/render';
import { LIVE_EVENTS } from '../live/liveEvents';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi(EMPTY_DASHBOARD);
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
    pushLive(store, {
      event: LIVE_EVENTS.statusChanged,
      payload: { kind: 'investment', id: 'inv-9', status: 'Active' },
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
  /** Today's trail: what the audit answers for DepositConfirmed (a decision lands here too). */
  let depositsConfirmed: Array<{ id: string; cents: number }> = [];
  /** What GET admin/queueStats answers (the services' counters). */
  let counters = { deposits: 1, investments: 0, withdrawals: 0, kyc: 2 };

  /** Today's audit trail: one deposit ($100.01) and one withdrawal ($20.00) decided before the page opened. */
  function auditAnswer(url: string): unknown {
    auditCalls.push(url);
    const action = new URLSearchParams(url.slice(url.indexOf('?') + 1)).get('action');
    const entries =
      action === 'DepositConfirmed'
        ? depositsConfirmed.map((d) => ({
            details: JSON.stringify({ depositId: d.id, userId: 'u', amountCents: d.cents }),
          }))
        : action === 'WithdrawalApproved'
          ? [{ details: JSON.stringify({ withdrawalId: 'w0', userId: 'u', amountCents: 2_000 }) }]
          : [];
    return { entries, nextCursor: '' };
  }

  function adminDashboard() {
    auditCalls.length = 0;
    depositsConfirmed = [{ id: 'old', cents: 10_001 }];
    counters = { deposits: 1, investments: 0, withdrawals: 0, kyc: 2 };
    const admin = aUser({ role: 'admin' });
    server.on('GET users/getUser', [200, admin]);
    server.on('GET admin/queueStats', () => [200, { ...counters }]);
    // the audit calls carry a query string: answered by prefix in front of the fake routes
    const routes = api.defaults.adapter;
    api.defaults.adapter = async (req) =>
      req.url.startsWith('admin/audit')
        ? { data: auditAnswer(req.url), status: 200, config: req }
        : routes(req);
    return renderApp('/dashboard', { preloadedState: loggedInAs(admin) });
  }

  const push = (store: { dispatch: (a: unknown) => unknown }, event: string, payload: unknown) =>
    pushLive(store, { event, payload });
  const QUEUE_LISTS = [
    'GET payments/pending-deposit',
    'GET invest/adminPendingInvestment',
    'GET withDraw/pending',
    'GET users/kyc/pending',
  ];

  it('reads every queue size from api/admin/queueStats, never loading a queue', async () => {
    adminDashboard();
    await vi.waitFor(() => expect(screen.getByTestId('queue-deposits')).toHaveTextContent('1'));
    expect(screen.getByTestId('queue-kyc')).toHaveTextContent('2');
    expect(screen.getByTestId('queue-investments')).toHaveTextContent('0');
    expect(screen.getByTestId('queue-withdrawals')).toHaveTextContent('0');
    expect(screen.getByRole('link', { name: 'Deposits waiting: 1' })).toHaveAttribute(
      'href',
      '/admin-pending-deposit',
    );
    expect(server.callsTo('GET admin/queueStats')).toHaveLength(1);
    for (const route of QUEUE_LISTS) expect(server.callsTo(route), route).toEqual([]);
  });

  it('shows a dash when the sizes cannot be read', async () => {
    const admin = aUser({ role: 'admin' });
    server.on('GET users/getUser', [200, admin]);
    server.on('GET admin/queueStats', [503, { message: 'Service unavailable' }]);
    renderApp('/dashboard', { preloadedState: loggedInAs(admin) });
    await vi.waitFor(() => expect(screen.getByTestId('queue-deposits')).toHaveTextContent('—'));
  });

  it('moves the sizes with the pushes, asks the counters again, and adds decided amounts in exact cents', async () => {
    const { store } = adminDashboard();
    await vi.waitFor(() => expect(screen.getByTestId('queue-deposits')).toHaveTextContent('1'));
    await vi.waitFor(() => expect(screen.getByTestId('flow-withdrawals')).toHaveTextContent('$20.00'));
    expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$100.01');
    expect(screen.getByTestId('flow-investments')).toHaveTextContent('$0.00');
    expect(auditCalls.every((u) => /[?&]from=\d{4}-\d\d-\d\dT/.test(u))).toBe(true);

    // a deposit requested: +1 at once
    counters = { ...counters, deposits: 2 };
    push(store, LIVE_EVENTS.queueItemAdded, { queue: 'deposits', item: deposit('d2', 0.1) });
    expect(screen.getByTestId('queue-deposits')).toHaveTextContent('2');
    // the same push again (a replay) counts nothing
    push(store, LIVE_EVENTS.queueItemAdded, { queue: 'deposits', item: deposit('d2', 0.1) });
    expect(screen.getByTestId('queue-deposits')).toHaveTextContent('2');

    // d1 waited before the panel opened (its amount is in today's trail once confirmed); d2 was pushed
    counters = { ...counters, deposits: 0 };
    depositsConfirmed = [...depositsConfirmed, { id: 'd1', cents: 25_050 }, { id: 'd2', cents: 10 }];
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd1', status: 'Confirmed' });
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd2', status: 'Confirmed' });
    expect(screen.getByTestId('queue-deposits')).toHaveTextContent('0');
    // $100.01 + $250.50 + $0.10 in cents: no float drift; each once
    await vi.waitFor(() => expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$350.61'));

    // a replayed decision is not counted twice; a rejection is not money in
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd2', status: 'Confirmed' });
    counters = { ...counters, deposits: 1 };
    push(store, LIVE_EVENTS.queueItemAdded, { queue: 'deposits', item: deposit('d3', 5) });
    counters = { ...counters, deposits: 0 };
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'deposits', id: 'd3', status: 'Rejected' });
    expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$350.61');
    expect(screen.getByTestId('queue-deposits')).toHaveTextContent('0');

    // the pushes asked the counters again (debounced: fewer calls than pushes), never a queue
    await vi.waitFor(() => expect(server.callsTo('GET admin/queueStats').length).toBeGreaterThan(1));
    expect(server.callsTo('GET admin/queueStats').length).toBeLessThan(7);
    for (const route of QUEUE_LISTS) expect(server.callsTo(route), route).toEqual([]);
  });

  it('takes the counters’ word over a push it missed', async () => {
    const { store } = adminDashboard();
    await vi.waitFor(() => expect(screen.getByTestId('queue-kyc')).toHaveTextContent('2'));
    // two KYC cases arrived while the socket was away; one push comes through
    counters = { ...counters, kyc: 4 };
    push(store, LIVE_EVENTS.queueItemAdded, { queue: 'kyc', item: { _id: 'k9', name: 'Kay' } });
    expect(screen.getByTestId('queue-kyc')).toHaveTextContent('3');
    await vi.waitFor(() => expect(screen.getByTestId('queue-kyc')).toHaveTextContent('4'));
  });

  it('adds an approved investment with the amount it was requested for', async () => {
    const { store } = adminDashboard();
    await vi.waitFor(() => expect(screen.getByTestId('flow-deposits')).toHaveTextContent('$100.01'));
    counters = { ...counters, investments: 1 };
    push(store, LIVE_EVENTS.queueItemAdded, {
      queue: 'investments',
      item: { _id: 'i1', investmentId: 'i1', plan: 'Bronze', amount: 600, status: 'pending' },
    });
    expect(screen.getByTestId('queue-investments')).toHaveTextContent('1');
    counters = { ...counters, investments: 0 };
    push(store, LIVE_EVENTS.queueItemDecided, { queue: 'investments', id: 'i1', status: 'Active' });
    expect(screen.getByTestId('queue-investments')).toHaveTextContent('0');
    expect(screen.getByTestId('flow-investments')).toHaveTextContent('$600.00');
  });
});
