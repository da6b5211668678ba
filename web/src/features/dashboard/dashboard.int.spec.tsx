import { act, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, expectLinks, loggedInAs, renderApp } from '../../test/render';
import { SAMPLE_NOTICES } from './Ticker';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true], 'GET invest/deposit-maturity': [200, {}] });
});
afterEach(() => {
  server.restore();
  vi.useRealTimers();
});

const USER_TILES = [
  'Deposit',
  'Invest',
  'Investment Status',
  'Investment Plans',
  'Withdraw',
  'Referrals',
  'Transaction History',
];
const ADMIN_TILES = [
  'Pending Withdrawal',
  'Pending Deposits',
  'Pending Investment',
  'Pending Kyc Verification',
];

describe('dashboard', () => {
  it('welcomes the user and shows the three balances in dollars with separators', async () => {
    const ada = aUser({
      name: 'Ada',
      balance: 1234.5,
      investmentBalance: 25000,
      totalMaturityAmount: 987654.321,
    });
    server.on('GET users/getUser', [200, ada]);
    renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    expect(screen.getByRole('heading', { name: 'Welcome, Ada' })).toBeInTheDocument();
    const balances = within(screen.getByRole('region', { name: 'Balances' }));
    expect(balances.getByText('Deposit Balance').nextSibling).toHaveTextContent('$1,234.50');
    expect(balances.getByText('Total Investment').nextSibling).toHaveTextContent('$25,000.00');
    expect(balances.getByText('Total Profit').nextSibling).toHaveTextContent('$987,654.32');
    await vi.waitFor(() => expect(server.callsTo('GET invest/deposit-maturity')).toHaveLength(1));
  });

  it('links the user tiles and hides admin tiles from a subscriber', () => {
    const ada = aUser();
    server.on('GET users/getUser', [200, ada]);
    renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    for (const label of USER_TILES) expect(screen.getByRole('link', { name: label })).toBeInTheDocument();
    expectLinks({ Deposit: '/deposit-payment', 'Transaction History': '/transaction-History' });
    for (const label of ADMIN_TILES)
      expect(screen.queryByRole('link', { name: label })).not.toBeInTheDocument();
  });

  it('shows admin tiles to an admin', () => {
    const admin = aUser({ role: 'admin' });
    server.on('GET users/getUser', [200, admin]);
    renderApp('/dashboard', { preloadedState: loggedInAs(admin) });
    expectLinks({
      'Pending Withdrawal': '/admin-pending-wallet',
      'Pending Deposits': '/admin-pending-deposit',
      'Pending Investment': '/admin-pending-investment',
      'Pending Kyc Verification': '/pending-kyc',
    });
  });

  it('asks an unverified user to verify and resends the link', async () => {
    const ada = aUser({ isVerified: false });
    server.on('GET users/getUser', [200, ada]);
    server.on('POST users/sendVerificationEmail', [200, { message: 'Verification Email Sent' }]);
    const { user } = renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    expect(screen.getByRole('heading', { name: 'Account Verification Needed' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Resend Verification Link' }));
    expect(await screen.findByText('Verification Email Sent')).toBeInTheDocument();
    expect(server.callsTo('POST users/sendVerificationEmail')).toHaveLength(1);
  });

  it('ignores a failing deposit-maturity call quietly', async () => {
    const ada = aUser();
    server.on('GET invest/deposit-maturity', [500, { message: 'maturity failed' }]);
    server.on('GET users/getUser', [200, ada]);
    renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    await vi.waitFor(() => expect(server.callsTo('GET users/getUser')).toHaveLength(1));
    expect(screen.queryByText('maturity failed')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: /Welcome/ })).toBeInTheDocument();
  });

  it('rotates the sample notices every 2 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const ada = aUser();
    server.on('GET users/getUser', [200, ada]);
    renderApp('/dashboard', { preloadedState: loggedInAs(ada) });
    expect(screen.getByTestId('ticker-text')).toHaveTextContent(SAMPLE_NOTICES[0]!);
    act(() => vi.advanceTimersByTime(1900));
    expect(screen.getByTestId('ticker-text')).toHaveTextContent(SAMPLE_NOTICES[0]!);
    act(() => vi.advanceTimersByTime(100));
    expect(screen.getByTestId('ticker-text')).toHaveTextContent(SAMPLE_NOTICES[1]!);
  });
});
