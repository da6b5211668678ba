/**
 * The money request forms (deposit, start-invest, withdrawal): a request the server accepts posts what was
 * typed, shows the server's message and goes to /dashboard once the form's delay has passed, not before; one
 * it refuses shows the form's failure text and the server's reason.
 */
import { act, screen } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApiEachTest } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';

const server = fakeApiEachTest();

interface Form {
  path: string;
  route: string;
  message: string;
  /** What the form needs answered before it can be filled. */
  setUp?: () => void;
  fill(user: UserEvent): Promise<void>;
  body: Record<string, string>;
  redirectMs: number;
  /** What else the form must (not) do. */
  also?: () => void;
  /** A request the server refuses: the form's failure text with the server's reason under it. */
  refused?: { reason: string; failed: string };
}

const FORMS: Form[] = [
  {
    path: '/deposit-payment',
    route: 'POST payments/create',
    message: 'Deposit request submitted, awaiting confirmation',
    async fill(user) {
      await user.type(screen.getByLabelText('Amount (USD)'), '2500.50');
      await user.click(screen.getByRole('button', { name: 'Submit deposit' }));
    },
    body: { amount: '2500.50' },
    redirectMs: 3000,
    refused: { reason: 'Please verify your email before depositing', failed: 'Error processing payment' },
  },
  {
    path: '/start-invest',
    route: 'POST invest/start-invest',
    message: 'Investment request received',
    setUp: () =>
      server.on('GET invest/plans', [
        200,
        {
          plans: [
            { _id: 'p1', name: 'Starter', minAmount: 100, maxAmount: 500 },
            { _id: 'p2', name: 'Gold', minAmount: 5000, maxAmount: 10000 },
          ],
        },
      ]),
    async fill(user) {
      await user.click(await screen.findByRole('radio', { name: /Starter/ }));
      await user.type(screen.getByLabelText('Amount (USD)'), ' 250 ');
      await user.click(screen.getByRole('button', { name: 'Invest in Starter' }));
    },
    body: { amount: '250', planName: 'Starter' },
    redirectMs: 2000,
    // the server sends the confirmation email, not this screen
    also: () => expect(server.calls.some((c) => c.url.includes('sendAutomatedEmail'))).toBe(false),
    refused: { reason: 'Insufficient balance', failed: 'Error processing payment' },
  },
  {
    path: '/withdraw-wallet',
    route: 'POST withDraw/create',
    message: 'Withdrawal request submitted',
    setUp: () => server.on('GET withDraw/balance', [200, { totalMaturityAmount: 500 }]),
    async fill(user) {
      await user.type(screen.getByLabelText('Amount (USD)'), '120');
      await user.type(screen.getByLabelText('Wallet address'), 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh');
      await user.click(screen.getByRole('button', { name: 'Request withdrawal' }));
    },
    body: { amount: '120', walletAddress: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh' },
    redirectMs: 3000,
  },
];

describe.each(FORMS)('$path', (form) => {
  it(`posts what was typed, shows the server message and goes to /dashboard after ${form.redirectMs} ms`, async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    server.on(form.route, [201, { message: form.message }]);
    form.setUp?.();
    const { user, router } = renderApp(form.path, { preloadedState: loggedInAs(aUser()), timers: true });
    await form.fill(user);
    expect((await screen.findAllByText(new RegExp(form.message))).length).toBeGreaterThan(0);
    expect(server.callsTo(form.route)[0]!.body).toEqual(form.body);
    form.also?.();
    act(() => vi.advanceTimersByTime(form.redirectMs - 100));
    expect(router.state.location.pathname).toBe(form.path);
    act(() => vi.advanceTimersByTime(100));
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});

const REFUSABLE = FORMS.flatMap(({ refused, ...form }) => (refused ? [{ ...form, refused }] : []));

describe.each(REFUSABLE)('$path, refused', ({ path, route, setUp, fill, refused }) => {
  it(`shows '${refused.failed}' and the server's reason`, async () => {
    server.on(route, [400, { message: refused.reason }]);
    setUp?.();
    const { user } = renderApp(path, { preloadedState: loggedInAs(aUser()) });
    await fill(user);
    expect(await screen.findByText(refused.failed)).toBeInTheDocument();
    expect(screen.getByText(refused.reason)).toBeInTheDocument();
  });
});
