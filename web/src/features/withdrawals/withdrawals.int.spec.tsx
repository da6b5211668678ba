import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { aUser, loggedInAs, pushLive, renderApp } from '../../test/render';
import { ada, admin } from '../../test/people';
import { pendingWithdrawal } from '../queues/moneyFixtures';

const server = fakeApiEachTest();

describe('/withdraw-wallet', () => {
  it('shows instructions, the irreversible warning and the current balance; both fields are required', async () => {
    server.on('GET withDraw/balance', [200, { totalMaturityAmount: 18342.75 }]);
    const { user } = renderApp('/withdraw-wallet', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('$18,342.75')).toBeInTheDocument();
    expect(screen.getByText('Wait for approval and an email confirmation.')).toBeInTheDocument();
    expect(screen.getByText(/Withdrawals cannot be reversed/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Amount (USD)'), '100');
    await user.click(screen.getByRole('button', { name: 'Request withdrawal' }));
    expect(screen.getByText('Please enter the amount and your wallet address.')).toBeInTheDocument();
    expect(server.callsTo('POST withDraw/create')).toHaveLength(0);
  });

  it('shows the withdrawable balance a balances/changed push brings, without another GET', async () => {
    server.on('GET withDraw/balance', [200, { totalMaturityAmount: 500 }]);
    const user = aUser();
    const { store } = renderApp('/withdraw-wallet', { preloadedState: loggedInAs(user) });
    expect(await screen.findByText('$500.00')).toBeInTheDocument();
    pushLive(store, {
      event: 'balances/changed',
      payload: {
        userId: user._id,
        balances: { balance: 1, investmentBalance: 0, totalMaturityAmount: 750.5 },
      },
    });
    expect(await screen.findByText('$750.50')).toBeInTheDocument();
    expect(server.callsTo('GET withDraw/balance')).toHaveLength(1);
  });

  it('only logs a failing balance fetch', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.on('GET withDraw/balance', [500, { message: 'balance down' }]);
    renderApp('/withdraw-wallet', { preloadedState: loggedInAs(aUser()) });
    await vi.waitFor(() => expect(log).toHaveBeenCalledWith('balance down'));
    expect(screen.queryByText('balance down')).not.toBeInTheDocument();
  });

  it("shows the server message, else 'Error requesting withdrawal'", async () => {
    server.on('GET withDraw/balance', [200, { totalMaturityAmount: 10 }]);
    server.on('POST withDraw/create', [400, { message: 'The minimum withdrawal is $50' }]);
    const { user } = renderApp('/withdraw-wallet', { preloadedState: loggedInAs(aUser()) });
    await user.type(screen.getByLabelText('Amount (USD)'), '20');
    await user.type(screen.getByLabelText('Wallet address'), '0xabc');
    await user.click(screen.getByRole('button', { name: 'Request withdrawal' }));
    expect((await screen.findAllByText('The minimum withdrawal is $50')).length).toBeGreaterThan(0);
    server.on('POST withDraw/create', [500, {}]);
    await user.click(screen.getByRole('button', { name: 'Request withdrawal' }));
    expect((await screen.findAllByText('Error requesting withdrawal')).length).toBeGreaterThan(0);
  });
});

describe('/withdrawal/:id', () => {
  const pending = pendingWithdrawal;

  it('approves a Pending withdrawal and updates its status locally', async () => {
    server.on('GET withDraw/get-withdrawal/w1', [200, pending]);
    server.on('PUT withDraw/approve/w1', [200, { message: 'ok' }]);
    const { user } = renderApp('/withdrawal/w1', { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText('Ada Lovelace')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('Withdrawal approved!')).toBeInTheDocument();
    expect(screen.getAllByText('Approved').length).toBeGreaterThan(0);
    expect(screen.queryByRole('button', { name: 'Reject' })).not.toBeInTheDocument();
    expect(server.callsTo('GET withDraw/get-withdrawal/w1')).toHaveLength(1);
  });

  it('offers no actions unless the status is exactly Pending', async () => {
    server.on('GET withDraw/get-withdrawal/w1', [200, { ...pending, status: 'pending' }]);
    renderApp('/withdrawal/w1', { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText('$250.00', { selector: '.detail-head__amount' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
  });

  it("replaces the screen with 'Failed to fetch withdrawal details.' when the answer has no amount", async () => {
    server.on('GET withDraw/get-withdrawal/w1', [200, { ...pending, amount: undefined }]);
    renderApp('/withdrawal/w1', { preloadedState: loggedInAs(admin) });
    expect(await screen.findByText('Failed to fetch withdrawal details.')).toBeInTheDocument();
    expect(screen.queryByText('Withdrawal detail')).not.toBeInTheDocument();
  });
});

describe('/admin-pending-wallet', () => {
  it('lists user, amount, date, status, wallet or N/A, with links; toasts the fetch', async () => {
    server.on('GET withDraw/pending', [
      200,
      {
        withdrawals: [
          { ...pendingWithdrawal, user: ada, amount: 1234.5 },
          { _id: 'w2', user: ada, amount: 60, status: 'Pending' },
        ],
      },
    ]);
    renderApp('/admin-pending-wallet', { preloadedState: loggedInAs(admin) });
    expect(screen.getByText('Loading pending withdrawals...', { selector: 'p' })).toBeInTheDocument();
    const list = await screen.findByRole('list', { name: 'Pending withdrawals' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(within(first!).getByText('$1,234.50')).toBeInTheDocument();
    expect(within(first!).getByText('0xabc')).toBeInTheDocument();
    expect(within(first!).getByText('ada@example.com')).toBeInTheDocument();
    expect(within(first!).getByText('Mar 4, 2026', { exact: false })).toBeInTheDocument();
    expect(within(second!).getByText('N/A')).toBeInTheDocument();
    expect(within(second!).getByRole('link', { name: 'Review withdrawal' })).toHaveAttribute(
      'href',
      '/withdrawal/w2',
    );
    expect(await screen.findByText('Pending withdrawals fetched successfully')).toBeInTheDocument();
  });
});
