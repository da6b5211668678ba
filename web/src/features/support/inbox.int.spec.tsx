import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, type RecordedCall } from '../../test/fakeApi';
import { aUser, clickThenSee, loggedInAs, pushLive, renderApp } from '../../test/render';
import type { LiveSocket } from '../live/live.saga';
import { ADDRESS_BOOK_TEXT } from './AddressBookPage';

const admin = aUser({ _id: 'admin-1', role: 'admin', name: 'Grace Admin' });
const vera = {
  conversationId: 'c1',
  status: 'open',
  userId: '',
  name: 'Vera Visitor',
  email: 'vera@example.com',
  assigneeId: '',
  lastMessageAt: '2026-11-28T09:00:00.000Z',
  lastMessageText: 'Where do I send my deposit?',
  unread: 1,
};
const ada = {
  ...vera,
  conversationId: 'c2',
  userId: 'u-ada',
  name: 'Ada Investor',
  email: 'ada@example.com',
  assigneeId: 'admin-1',
  lastMessageText: 'Thanks',
  unread: 0,
};

const greeting = {
  id: 'greeting',
  title: 'Greeting',
  text: 'Hello, thank you for contacting Meridian support. How can we help you today?',
};

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({
    'GET users/loginStatus': [200, true],
    'GET support/canned-replies': [200, { replies: [greeting] }],
    'GET support/conversations': (call: RecordedCall) => {
      const q = new URLSearchParams(call.url.split('?')[1]);
      if (q.get('q')) return [200, { conversations: [ada] }];
      if (q.get('status') === 'closed') return [200, { conversations: [] }];
      if (q.get('assigned') === 'me') return [200, { conversations: [ada] }];
      if (q.get('assigned') === 'none') return [200, { conversations: [vera] }];
      return [200, { conversations: [vera, ada] }];
    },
    'GET support/conversations/c1': [
      200,
      {
        conversation: vera,
        messages: [
          {
            messageId: 'm1',
            conversationId: 'c1',
            from: 'investor',
            text: 'Where do I send my deposit?',
            createdAt: '2026-11-28T09:00:00.000Z',
            internal: false,
            authorId: '',
          },
          {
            messageId: 'm2',
            conversationId: 'c1',
            from: 'support',
            text: 'Check her KYC first',
            createdAt: '2026-11-28T09:01:00.000Z',
            internal: true,
            authorId: 'admin-2',
          },
        ],
      },
    ],
  });
});
afterEach(() => server.restore());

const names = () =>
  within(screen.getByRole('list', { name: 'Conversations' }))
    .getAllByRole('button')
    .map((b) => b.querySelector('.inbox__item-head span')?.textContent);

describe('/support-inbox', () => {
  it('is for admins only', async () => {
    renderApp('/support-inbox', { preloadedState: loggedInAs(aUser()) });
    expect(await screen.findByText('Administrators only')).toBeInTheDocument();
    expect(server.callsTo('GET support/conversations')).toHaveLength(0);
  });

  it('filters unassigned, mine, all open and closed, and searches by name or email', async () => {
    const { user } = renderApp('/support-inbox', { preloadedState: loggedInAs(admin) });
    await screen.findByRole('list', { name: 'Conversations' });
    expect(names()).toEqual(['Vera Visitor']);
    expect(screen.getByRole('button', { name: 'Unassigned' })).toHaveAttribute('aria-pressed', 'true');
    await user.click(screen.getByRole('button', { name: 'Mine' }));
    await vi.waitFor(() => expect(names()).toEqual(['Ada Investor']));
    await user.click(screen.getByRole('button', { name: 'All open' }));
    await vi.waitFor(() => expect(names()).toEqual(['Vera Visitor', 'Ada Investor']));
    await clickThenSee(user, [['Closed', 'No conversations here.']]);
    const urls = server.callsTo('GET support/conversations').map((c) => c.url);
    expect(urls).toEqual([
      'support/conversations?status=open&assigned=none',
      'support/conversations?status=open&assigned=me',
      'support/conversations?status=open&assigned=any',
      'support/conversations?status=closed&assigned=any',
    ]);
    await user.click(screen.getByRole('button', { name: 'All open' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search by name or email' }), 'ada@');
    await vi.waitFor(() =>
      expect(server.callsTo('GET support/conversations').at(-1)?.url).toBe(
        'support/conversations?status=open&assigned=any&q=ada%40',
      ),
    );
    await vi.waitFor(() => expect(names()).toEqual(['Ada Investor']));
  });

  it('keeps the list live: new messages, changed conversations, and ones it did not hold', async () => {
    const { store } = renderApp('/support-inbox', { preloadedState: loggedInAs(admin) });
    const list = await screen.findByRole('list', { name: 'Conversations' });
    const push = (event: string, payload: unknown) => pushLive(store, { event, payload });
    push('support/message', {
      conversationId: 'c1',
      message: {
        _id: 'm9',
        conversationId: 'c1',
        from: 'investor',
        text: 'Are you there?',
        createdAt: '2026-11-28T10:00:00.000Z',
        internal: false,
        authorId: '',
        depositAddress: null,
      },
    });
    expect(await within(list).findByText('Are you there?')).toBeInTheDocument();
    expect(within(list).getByLabelText('2 unread')).toBeInTheDocument();
    // assigned to another admin: it leaves the unassigned list
    push('support/conversation', {
      conversationId: 'c1',
      conversation: { _id: 'c1', assigneeId: 'admin-2' },
    });
    expect(await screen.findByText('No conversations here.')).toBeInTheDocument();
    // a conversation the list does not hold: the list is asked again
    const asked = server.callsTo('GET support/conversations').length;
    push('support/conversation', {
      conversationId: 'c9',
      conversation: { _id: 'c9', status: 'open', name: 'New Person', userId: null },
    });
    await vi.waitFor(() => expect(server.callsTo('GET support/conversations').length).toBe(asked + 1));
  });

  it('shows the conversation with internal notes marked, replies, notes and canned replies', async () => {
    server.on('POST support/conversations/c1/messages', (call) => [
      201,
      {
        message: {
          messageId: `m-${Math.random()}`,
          conversationId: 'c1',
          from: 'support',
          createdAt: '2026-11-28T09:02:00.000Z',
          authorId: 'admin-1',
          ...(call.body as object),
        },
      },
    ]);
    const { user } = renderApp('/support-inbox?c=c1', { preloadedState: loggedInAs(admin) });
    const thread = await screen.findByRole('region', { name: 'Vera Visitor' });
    const messages = await within(thread).findAllByTestId('chat-message');
    expect(messages[1]).toHaveTextContent('Internal note');
    expect(messages[1]).toHaveClass('chat-msg--note');
    expect(messages[0]).not.toHaveTextContent('Internal note');

    await user.selectOptions(
      within(thread).getByRole('combobox', { name: 'Canned reply' }),
      await within(thread).findByRole('option', { name: 'Greeting' }),
    );
    const reply = within(thread).getByRole('textbox', { name: 'Reply' });
    expect(reply).toHaveValue(greeting.text);
    await user.click(within(thread).getByRole('button', { name: 'Send reply' }));
    await vi.waitFor(() => expect(reply).toHaveValue(''));
    expect(server.callsTo('POST support/conversations/c1/messages')[0]!.body).toEqual({
      text: greeting.text,
    });

    await user.click(within(thread).getByRole('checkbox', { name: 'Internal note' }));
    await user.type(
      within(thread).getByRole('textbox', { name: 'Internal note' }),
      'Sent the BTC one{Enter}',
    );
    await vi.waitFor(() => expect(server.callsTo('POST support/conversations/c1/messages')).toHaveLength(2));
    expect(server.callsTo('POST support/conversations/c1/messages')[1]!.body).toEqual({
      text: 'Sent the BTC one',
      internal: true,
    });
    const notes = await within(thread).findAllByText('Internal note', { selector: '.badge' });
    expect(notes).toHaveLength(2);
  });

  it("tells the investor's sockets support is typing a reply (never a note), and when it stopped", async () => {
    server.on('POST support/conversations/c1/messages', (call) => [
      201,
      {
        message: {
          messageId: 'm3',
          conversationId: 'c1',
          from: 'support',
          createdAt: '2026-11-28T09:02:00.000Z',
          authorId: 'admin-1',
          ...(call.body as object),
        },
      },
    ]);
    const emitted: Array<[string, unknown]> = [];
    const socket: LiveSocket = {
      on: (event, listener) => event === 'connect' && setTimeout(listener, 0),
      onAny: () => undefined,
      emit: (event, payload) => emitted.push([event, payload]),
      disconnect: () => undefined,
    };
    const { user, store } = renderApp('/support-inbox?c=c1', {
      preloadedState: loggedInAs(admin),
      createSocket: () => socket,
    });
    const thread = await screen.findByRole('region', { name: 'Vera Visitor' });
    await vi.waitFor(() => expect(store.getState().live.status).toBe('connected'));
    const typing = (on: boolean) => ['support/typing', { conversationId: 'c1', typing: on }];

    // repeated while typing goes on (every TYPING_REPEAT_MS), not once per key: the changes in between collapsed
    const changes = () =>
      emitted.filter((e, i) => i === 0 || JSON.stringify(e) !== JSON.stringify(emitted[i - 1]));

    const reply = within(thread).getByRole('textbox', { name: 'Reply' });
    await user.type(reply, 'Hello Vera');
    expect(emitted.length).toBeLessThan('Hello Vera'.length);
    expect(changes()).toEqual([typing(true)]);
    await user.clear(reply);
    expect(changes()).toEqual([typing(true), typing(false)]);
    const sent = emitted.length;

    await user.click(within(thread).getByRole('checkbox', { name: 'Internal note' }));
    await user.type(within(thread).getByRole('textbox', { name: 'Internal note' }), 'Check her KYC');
    expect(emitted).toHaveLength(sent);
    await user.click(within(thread).getByRole('checkbox', { name: 'Internal note' }));
    await user.clear(within(thread).getByRole('textbox', { name: 'Reply' }));

    await user.type(within(thread).getByRole('textbox', { name: 'Reply' }), 'Here it comes{Enter}');
    await vi.waitFor(() => expect(server.callsTo('POST support/conversations/c1/messages')).toHaveLength(1));
    await vi.waitFor(() =>
      expect(changes()).toEqual([typing(true), typing(false), typing(true), typing(false)]),
    );

    // leaving the conversation while typing counts as stopping
    server.on('GET support/conversations/c2', [200, { conversation: { ...ada, _id: 'c2' }, messages: [] }]);
    await user.type(within(thread).getByRole('textbox', { name: 'Reply' }), 'One more');
    expect(changes().at(-1)).toEqual(typing(true));
    await user.click(screen.getByRole('button', { name: 'All open' }));
    const list = screen.getByRole('list', { name: 'Conversations' });
    await user.click(await within(list).findByRole('button', { name: /Ada Investor/ }));
    await screen.findByRole('region', { name: 'Ada Investor' });
    expect(changes().at(-1)).toEqual(typing(false));
    expect(emitted.filter(([, p]) => (p as { conversationId: string }).conversationId !== 'c1')).toEqual([]);
  });

  it('assigns, closes and reopens, showing what the server answers', async () => {
    server.on('POST support/conversations/c1/assign', (call) => [
      200,
      { conversation: { ...vera, assigneeId: (call.body as { assigneeId: string }).assigneeId } },
    ]);
    server.on('POST support/conversations/c1/close', [200, { conversation: { ...vera, status: 'closed' } }]);
    server.on('POST support/conversations/c1/reopen', [409, { message: 'This visitor is blocked' }]);
    const { user } = renderApp('/support-inbox?c=c1', { preloadedState: loggedInAs(admin) });
    const thread = await screen.findByRole('region', { name: 'Vera Visitor' });
    await user.click(within(thread).getByRole('button', { name: 'Assign to me' }));
    expect(await within(thread).findByText('Assigned to you')).toBeInTheDocument();
    expect(server.callsTo('POST support/conversations/c1/assign')[0]!.body).toEqual({
      assigneeId: 'admin-1',
    });
    await user.click(within(thread).getByRole('button', { name: 'Close' }));
    await user.click(await within(thread).findByRole('button', { name: 'Reopen' }));
    expect(await within(thread).findByRole('alert')).toHaveTextContent('This visitor is blocked');
  });

  it('sends a deposit address chosen from the active ones', async () => {
    server.on('GET admin/deposit-addresses', [
      200,
      {
        addresses: [
          {
            addressId: 'a1',
            network: 'bitcoin',
            label: 'BTC main',
            address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
            status: 'active',
          },
          {
            addressId: 'a2',
            network: 'tron',
            label: 'Old TRON',
            address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
            status: 'retired',
          },
        ],
      },
    ]);
    server.on('POST support/conversations/c1/deposit-address', [
      201,
      {
        message: {
          messageId: 'm-addr',
          conversationId: 'c1',
          from: 'support',
          text: 'Your deposit address',
          createdAt: '2026-11-28T09:05:00.000Z',
          depositAddress: {
            addressId: 'a1',
            network: 'bitcoin',
            address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
            label: 'BTC main',
          },
        },
      },
    ]);
    const { user } = renderApp('/support-inbox?c=c1', { preloadedState: loggedInAs(admin) });
    const thread = await screen.findByRole('region', { name: 'Vera Visitor' });
    await user.click(within(thread).getByRole('button', { name: 'Send deposit address' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send deposit address' });
    const options = await within(dialog).findAllByRole('radio');
    expect(options).toHaveLength(1);
    await user.click(within(dialog).getByRole('radio', { name: /BTC main/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Send address' }));
    expect(
      await within(thread).findByRole('group', { name: 'Deposit address on Bitcoin (BTC)' }),
    ).toBeInTheDocument();
    expect(server.callsTo('POST support/conversations/c1/deposit-address')[0]!.body).toEqual({
      addressId: 'a1',
    });
  });

  it("shows an investor's balances, KYC status and pending items beside the conversation", async () => {
    server.on('GET support/conversations/c2', [200, { conversation: { ...ada, _id: 'c2' }, messages: [] }]);
    server.on('GET support/conversations/c2/summary', [
      200,
      {
        conversationId: 'c2',
        userId: 'u-ada',
        name: 'Ada Investor',
        email: 'ada@example.com',
        balances: { balance: 1500, investmentBalance: 0, totalMaturityAmount: 12.5 },
        kycStatus: 'Pending',
        pending: {
          deposits: [{ _id: 'd1', transactionId: 'd1', amount: 250, status: 'Pending' }],
          withdrawals: null,
        },
      },
    ]);
    renderApp('/support-inbox?c=c2', { preloadedState: loggedInAs(admin) });
    const balances = await screen.findByLabelText('Balances and KYC');
    expect(within(balances).getByText('Deposit Balance').nextElementSibling).toHaveTextContent('$1,500.00');
    expect(within(balances).getByRole('link', { name: 'Pending: review' })).toHaveAttribute(
      'href',
      '/pending-kyc',
    );
    const waiting = screen.getByRole('list', { name: 'Waiting items' });
    expect(
      within(waiting)
        .getAllByRole('link')
        .map((l) => l.getAttribute('href')),
    ).toEqual(['/transaction/d1']);
  });
});

describe('/admin-deposit-addresses', () => {
  it("adds an address, shows the server's check message, and retires one", async () => {
    let book = [
      {
        addressId: 'a1',
        network: 'bitcoin',
        label: 'BTC main',
        address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
        status: 'active',
      },
    ];
    server.on('GET admin/deposit-addresses', () => [200, { addresses: book }]);
    server.on('POST admin/deposit-addresses', (call) => {
      const body = call.body as { network: string; label: string; address: string };
      if (body.address.startsWith('0x0000'))
        return [400, { message: 'This is not a valid Ethereum address: its checksum does not match.' }];
      book = [...book, { addressId: 'a2', status: 'active', ...body }];
      return [201, { address: book.at(-1) }];
    });
    server.on('POST admin/deposit-addresses/a1/retire', [200, { message: 'Retired' }]);
    const { user } = renderApp('/admin-deposit-addresses', { preloadedState: loggedInAs(admin) });
    const table = await screen.findByRole('table', { name: 'Deposit addresses' });
    expect(within(table).getByText('BTC main')).toBeInTheDocument();

    const form = screen.getByRole('form', { name: 'Add an address' });
    await user.click(within(form).getByRole('button', { name: 'Add address' }));
    expect(within(form).getByRole('alert')).toHaveTextContent(ADDRESS_BOOK_TEXT.required);
    await user.selectOptions(within(form).getByLabelText('Network'), 'ethereum');
    await user.type(within(form).getByLabelText('Label'), 'ETH main');
    await user.type(within(form).getByLabelText('Address'), '0x0000000000000000000000000000000000000Bad');
    await user.click(within(form).getByRole('button', { name: 'Add address' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'This is not a valid Ethereum address: its checksum does not match.',
    );
    await user.clear(within(form).getByLabelText('Address'));
    await user.type(within(form).getByLabelText('Address'), '0x52908400098527886E0F7030069857D2E4169EE7');
    await user.click(within(form).getByRole('button', { name: 'Add address' }));
    expect(await within(table).findByText('ETH main')).toBeInTheDocument();
    expect(server.callsTo('POST admin/deposit-addresses').at(-1)!.body).toEqual({
      network: 'ethereum',
      label: 'ETH main',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
    });

    await user.click(within(table).getByRole('button', { name: 'Retire BTC main' }));
    await vi.waitFor(() =>
      expect(within(table).getAllByText('Retired', { selector: '.badge' })).toHaveLength(1),
    );
    expect(within(table).queryByRole('button', { name: 'Retire BTC main' })).not.toBeInTheDocument();
  });
});

describe('the admin dashboard', () => {
  it('shows the conversations waiting for support, linked to the inbox', async () => {
    server.on('GET support/unread', [200, { count: 3 }]);
    server.on('GET admin/queueStats', [200, { deposits: 0, investments: 0, withdrawals: 0, kyc: 0 }]);
    renderApp('/dashboard', { preloadedState: loggedInAs(admin) });
    const figure = await screen.findByTestId('queue-support');
    await vi.waitFor(() => expect(figure).toHaveTextContent('3'));
    expect(figure.closest('a')).toHaveAttribute('href', '/support-inbox');
  });
});
