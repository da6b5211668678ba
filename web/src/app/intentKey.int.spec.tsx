/**
 * Every money command and balance edit carries one Idempotency-Key per user intent (app/intentKey.ts): sent
 * with the request, the same on a retry after an unknown outcome (here a 503), a new one once the server has
 * decided (a 2xx or a 4xx) or the values changed.
 */
import { screen } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, type RecordedCall } from '../test/fakeApi';
import { aUser, authState, loggedInAs, renderApp } from '../test/render';
import { admin } from '../test/people';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => server.restore());

const KEY = /^spa-[0-9a-f]{32}$/;
const keyOf = (call: RecordedCall | undefined) => call?.headers['Idempotency-Key'];

const target = aUser({ _id: 'u-7', name: 'Ada Lovelace', balance: 300 });

interface Screen {
  name: string;
  path: string;
  route: string;
  ok: [number, { message: string }];
  /** the store the screen opens with: an investor's unless given */
  state?: () => object;
  setUp?: () => void;
  /** Fills the form's values other than the amount, the same every time. */
  fill?: (user: UserEvent) => Promise<void>;
  /** the amount typed unless a test gives another */
  amount: string;
  /** the submit button (clicked again as it is for the user's retry) */
  button: string;
}

/** Fills the screen's form (`amount` may vary) and submits it. */
async function submit(s: Screen, user: UserEvent, amount = s.amount) {
  await s.fill?.(user);
  await user.clear(screen.getByLabelText('Amount (USD)'));
  await user.type(screen.getByLabelText('Amount (USD)'), amount);
  await user.click(screen.getByRole('button', { name: s.button }));
}

const screens: Screen[] = [
  {
    name: 'deposit',
    path: '/deposit-payment',
    route: 'POST payments/create',
    ok: [201, { message: 'Deposit request submitted' }],
    amount: '250',
    button: 'Submit deposit',
  },
  {
    name: 'start-invest',
    path: '/start-invest',
    route: 'POST invest/start-invest',
    ok: [201, { message: 'Investment request received' }],
    setUp: () =>
      server.on('GET invest/plans', [
        200,
        [{ name: 'Starter', min: 100, max: 500, rate: 12, durationDays: 1 }],
      ]),
    fill: async (user) => user.click(await screen.findByRole('radio', { name: /Starter/ })),
    amount: '250',
    button: 'Invest in Starter',
  },
  {
    name: 'withdrawal',
    path: '/withdraw-wallet',
    route: 'POST withDraw/create',
    ok: [201, { message: 'Withdrawal request submitted' }],
    setUp: () => server.on('GET withDraw/balance', [200, { totalMaturityAmount: 500 }]),
    fill: async (user) => {
      await user.clear(screen.getByLabelText('Wallet address'));
      await user.type(screen.getByLabelText('Wallet address'), 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh');
    },
    amount: '120',
    button: 'Request withdrawal',
  },
  ...(
    [
      ['/edit-balance/u-7', 'PUT users/updateDepositBalance/u-7'],
      ['/edit-user-balance/u-7', 'PUT users/editDepositBalance/u-7'],
      ['/edit-investment-balance/u-7', 'PUT users/editinvestmentBalance/u-7'],
    ] as const
  ).map(([path, route]): Screen => ({
    name: route,
    path,
    route,
    ok: [200, { message: 'Balance updated successfully' }],
    state: () => ({ auth: authState({ isLoggedIn: true, user: admin, users: [admin, target] }) }),
    amount: '25.5',
    button: 'Submit',
  })),
];

/** The store a screen opens with. */
const stateOf = (s: Screen) => (s.state ? s.state() : loggedInAs(aUser()));

/** Answers the route with `replies` in turn. */
function answer(route: string, replies: Array<[number, unknown]>) {
  server.on(route, () => replies.shift() ?? [500, { message: 'no more replies' }]);
}

describe('Idempotency-Key: one per user intent, kept across retries', () => {
  it.each(screens)('$name: a retry after a 503 sends the same key', async (s) => {
    s.setUp?.();
    answer(s.route, [[503, { message: 'Service unavailable' }], s.ok]);
    const { user } = renderApp(s.path, { preloadedState: stateOf(s) });
    await submit(s, user);
    await screen.findAllByText('Service unavailable');
    await user.click(screen.getByRole('button', { name: s.button }));
    await screen.findAllByText(s.ok[1].message);
    const [first, retry] = server.callsTo(s.route);
    expect(keyOf(first)).toMatch(KEY);
    expect(keyOf(retry)).toBe(keyOf(first));
  });

  it('a new key once the server decided (a refusal, or a success) or the values changed', async () => {
    const s = screens.find((x) => x.name === 'PUT users/editDepositBalance/u-7')!;
    answer(s.route, [[400, { message: 'Insufficient balance for this deduction' }], s.ok, s.ok, s.ok]);
    const { user } = renderApp(s.path, { preloadedState: stateOf(s) });
    await submit(s, user);
    await screen.findAllByText('Insufficient balance for this deduction');
    await submit(s, user); // the same values after a refusal: a new intent
    await screen.findAllByText('Balance updated successfully');
    await submit(s, user); // the same values after a success: another credit, another key
    await submit(s, user, '30'); // other values
    const keys = server.callsTo(s.route).map(keyOf);
    expect(keys).toHaveLength(4);
    for (const k of keys) expect(k).toMatch(KEY);
    expect(new Set(keys).size).toBe(4);
  });
});
