import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => server.restore());

const btc = { network: 'bitcoin', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', addressId: 'a-btc' };
const usdt = {
  network: 'erc20',
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
  addressId: 'a-usdt',
  label: 'USDT',
};
const message = (id: string, createdAt: string, depositAddress: typeof btc | null, internal = false) => ({
  _id: id,
  conversationId: 'c1',
  from: 'support',
  text: depositAddress ? 'Your deposit address' : 'Hello',
  createdAt,
  internal,
  depositAddress,
});

describe('/deposit-payment: the addresses given in the support chat', () => {
  it('lists each address once, newest first and chosen, and declares the one picked', async () => {
    server.on('GET support/conversations/mine', [
      200,
      {
        conversation: { _id: 'c1', status: 'open' },
        messages: [
          message('m1', '2026-11-28T09:00:00.000Z', btc),
          message('m2', '2026-11-28T09:05:00.000Z', null),
          message('m3', '2026-11-28T09:10:00.000Z', usdt),
          message('m4', '2026-11-28T09:15:00.000Z', btc),
          // a note between admins is not an address given to the investor
          message('m5', '2026-11-28T09:20:00.000Z', { ...btc, addressId: 'a-note' }, true),
        ],
      },
    ]);
    server.on('POST payments/create', [201, { message: 'Deposit request submitted' }]);
    const { user } = renderApp('/deposit-payment', { preloadedState: loggedInAs(aUser()) });
    const group = await screen.findByRole('group', { name: 'Sent to' });
    const options = within(group).getAllByRole('radio');
    expect(options.map((o) => (o as HTMLInputElement).value)).toEqual(['a-btc', 'a-usdt']);
    expect(within(group).getByRole('radio', { name: /Bitcoin \(BTC\)/ })).toBeChecked();
    expect(group).toHaveTextContent(usdt.address);
    await user.click(within(group).getByRole('radio', { name: /Ethereum ERC-20 token · USDT/ }));
    await user.type(screen.getByLabelText('Amount (USD)'), '500');
    await user.click(screen.getByRole('button', { name: 'Submit deposit' }));
    await screen.findAllByText(/Deposit request submitted/);
    expect(server.callsTo('POST payments/create')[0]!.body).toEqual({ amount: '500', addressId: 'a-usdt' });
  });

  it('without a conversation the declaration names no address, as before', async () => {
    server.on('GET support/conversations/mine', [200, { conversation: null, messages: [] }]);
    server.on('POST payments/create', [201, { message: 'Deposit request submitted' }]);
    const { user } = renderApp('/deposit-payment', { preloadedState: loggedInAs(aUser()) });
    await user.type(screen.getByLabelText('Amount (USD)'), '75');
    await user.click(screen.getByRole('button', { name: 'Submit deposit' }));
    await screen.findAllByText(/Deposit request submitted/);
    expect(screen.queryByRole('group', { name: 'Sent to' })).not.toBeInTheDocument();
    expect(server.callsTo('POST payments/create')[0]!.body).toEqual({ amount: '75' });
  });
});

describe('/transaction/{id}: the address beside the amount', () => {
  it('shows the network and address the deposit was declared to', async () => {
    server.on('GET payments/viewPaymentStatus/t-1', [
      200,
      {
        _id: 't-1',
        amount: 500,
        status: 'Pending',
        createdAt: '2026-11-28T09:30:00.000Z',
        user: { _id: 'u-2', name: 'Ada Lovelace', email: 'ada@example.com' },
        sentTo: { network: 'erc20', address: usdt.address, addressId: usdt.addressId },
      },
    ]);
    renderApp('/transaction/t-1', { preloadedState: loggedInAs(aUser({ _id: 'admin-1', role: 'admin' })) });
    const list = await screen.findByLabelText('Payment');
    expect(within(list).getByText('Network').nextElementSibling).toHaveTextContent('Ethereum ERC-20 token');
    expect(within(list).getByText('Sent to').nextElementSibling).toHaveTextContent(usdt.address);
  });
});
