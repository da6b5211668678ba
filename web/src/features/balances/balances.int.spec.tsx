import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, authState, renderApp } from '../../test/render';
import { admin } from '../../test/people';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => server.restore());

const target = aUser({
  _id: 'u-7',
  name: 'Ada Lovelace',
  totalMaturityAmount: 1200,
  balance: 300,
  investmentBalance: 5000,
});
const state = () => ({ auth: authState({ isLoggedIn: true, user: admin, users: [admin, target] }) });

describe('balance edit screens', () => {
  it.each([
    ['/edit-balance/u-7', 'PUT users/updateDepositBalance/u-7', 'Edit total profit', '$1,200.00'],
    ['/edit-user-balance/u-7', 'PUT users/editDepositBalance/u-7', 'Edit deposit balance', '$300.00'],
    [
      '/edit-investment-balance/u-7',
      'PUT users/editinvestmentBalance/u-7',
      'Edit investment balance',
      '$5,000.00',
    ],
  ])('%s calls %s with { operation, amount } (add by default)', async (path, route, title, current) => {
    server.on(route, [200, { message: 'Balance updated successfully' }]);
    const { user } = renderApp(path, { preloadedState: state() });
    expect(screen.getByRole('heading', { name: title })).toBeInTheDocument();
    expect(screen.getByText(current)).toBeInTheDocument();
    expect(screen.getByLabelText('Operation')).toHaveValue('add');
    await user.type(screen.getByLabelText('Amount (USD)'), '25.5');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Balance updated successfully')).toBeInTheDocument();
    expect(server.callsTo(route)[0]!.body).toEqual({ operation: 'add', amount: 25.5 });
  });

  it('shows the balance the server answers after an edit, also when the page was opened by its address', async () => {
    server.on('PUT users/editDepositBalance/u-7', [
      200,
      {
        message: 'Balance updated successfully',
        userId: 'u-7',
        balance: 325.5,
        investmentBalance: 5000,
        totalMaturityAmount: 1200,
      },
    ]);
    const { user } = renderApp('/edit-user-balance/u-7', { preloadedState: state() });
    const strip = screen.getByLabelText('Current balance');
    expect(strip).toHaveTextContent('Ada Lovelace · Deposit Balance$300.00');
    // the users list had them: nothing asked for
    expect(server.callsTo('GET users/getUsers')).toHaveLength(0);
    await user.type(screen.getByLabelText('Amount (USD)'), '25.5');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Balance updated successfully')).toBeInTheDocument();
    expect(strip).toHaveTextContent('$325.50');
  });

  it('a page opened by its address (no users list loaded) asks for that user by id and shows their balance', async () => {
    server.on('GET users/getUsers?id=u-9', [
      200,
      [
        aUser({
          _id: 'u-9',
          name: 'Grace Hopper',
          balance: 12.5,
          investmentBalance: 0,
          totalMaturityAmount: 7,
        }),
      ],
    ]);
    renderApp('/edit-user-balance/u-9', { preloadedState: state() });
    expect(await screen.findByLabelText('Current balance')).toHaveTextContent(
      'Grace Hopper · Deposit Balance$12.50',
    );
    expect(screen.getByText(/Add to or deduct from Grace Hopper’s Deposit Balance/)).toBeInTheDocument();
    expect(server.callsTo('GET users/getUsers?id=u-9')).toHaveLength(1);
  });

  it('a page opened by its address whose user the server does not answer shows the balance once an edit answers it', async () => {
    server.on('GET users/getUsers?id=u-9', [200, []]);
    server.on('PUT users/updateDepositBalance/u-9', [
      200,
      {
        message: 'Balance updated successfully',
        userId: 'u-9',
        balance: 0,
        investmentBalance: 0,
        totalMaturityAmount: 40,
      },
    ]);
    const { user } = renderApp('/edit-balance/u-9', { preloadedState: state() });
    expect(screen.queryByLabelText('Current balance')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Amount (USD)'), '40');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByLabelText('Current balance')).toHaveTextContent(
      'This user · Total Profit (wallet balance)$40.00',
    );
  });

  it('requires a numeric amount, sends deduct, and shows the server message else "Something went wrong"', async () => {
    let answer: [number, unknown] = [400, { message: 'Insufficient balance to deduct' }];
    server.on('PUT users/editDepositBalance/u-7', () => answer);
    const { user } = renderApp('/edit-user-balance/u-7', { preloadedState: state() });
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(screen.getByText('Please enter a valid amount.')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Amount (USD)'), '9999');
    await user.selectOptions(screen.getByLabelText('Operation'), 'deduct');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Insufficient balance to deduct')).toBeInTheDocument();
    expect(server.callsTo('PUT users/editDepositBalance/u-7')[0]!.body).toEqual({
      operation: 'deduct',
      amount: 9999,
    });
    answer = [500, {}];
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Something went wrong')).toBeInTheDocument();
  });

  it("on the admin's own balances: the server's maker-checker rule, shown before any try, and no submit", async () => {
    const { user } = renderApp('/edit-user-balance/admin-1', { preloadedState: state() });
    expect(screen.getByRole('note')).toHaveTextContent(
      'You cannot adjust your own balances: another admin must do it (if you are the only admin, a second admin is needed)',
    );
    expect(screen.getByLabelText('Amount (USD)')).toBeDisabled();
    expect(screen.getByLabelText('Operation')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Submit' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(server.callsTo('PUT users/editDepositBalance/admin-1')).toHaveLength(0);
    // another user's balances: no note, the form works
    renderApp('/edit-user-balance/u-7', { preloadedState: state() });
    expect(screen.getAllByRole('note')).toHaveLength(1);
  });

  it("reads 'Processing...' while busy and has a Back button", async () => {
    let release: (v: [number, unknown]) => void = () => undefined;
    server.on('PUT users/updateDepositBalance/u-7', () => new Promise((r) => (release = r)));
    const { user, router } = renderApp('/edit-balance/u-7', { preloadedState: state() });
    await user.type(screen.getByLabelText('Amount (USD)'), '1');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Processing...', { selector: 'span' })).toBeInTheDocument();
    release([200, { message: 'Done' }]);
    expect(await screen.findByText('Done')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/edit-balance/u-7');
  });
});
