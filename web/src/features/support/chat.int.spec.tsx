import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, pushLive, renderApp } from '../../test/render';
import { resetSupportConfig } from './ChatLauncher';
import { COMPOSER_TEXT } from './Composer';
import { ADDRESS_CARD_TEXT } from './DepositAddressCard';
import { CHAT_TEXT } from './ChatPanel';
import { MESSAGES } from '../auth/validation';
import type { SupportMessage } from './supportTypes';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  resetSupportConfig();
  localStorage.clear();
  server = fakeApi({
    'GET users/loginStatus': [200, true],
    'GET support/config': [200, {}],
  });
});
afterEach(() => {
  server.restore();
  document.querySelectorAll('script[data-live-chat]').forEach((s) => s.remove());
});

const conversation = { _id: 'c1', status: 'open' as const, unread: 0 };
function aMessage(overrides: Partial<SupportMessage> = {}): SupportMessage {
  return {
    _id: `m-${Math.random().toString(36).slice(2, 10)}`,
    conversationId: 'c1',
    from: 'support',
    text: 'Hello, how can we help?',
    createdAt: '2026-11-28T09:00:00.000Z',
    ...overrides,
  };
}

function clipboard(writeText: (t: string) => Promise<void>) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
}

async function openChat(user: ReturnType<typeof renderApp>['user']) {
  await user.click(await screen.findByRole('button', { name: /^Chat with support/ }));
  return screen.findByRole('dialog', { name: 'Support' });
}

describe('the chat launcher', () => {
  it('counts the replies newer than the last one seen in the panel, and each reply pushed while closed', async () => {
    const seen = aMessage({ text: 'Seen before', createdAt: '2026-11-28T09:00:00.000Z' });
    server.on('GET support/conversations/mine', [
      200,
      {
        conversation,
        messages: [seen, aMessage({ from: 'investor', createdAt: '2026-11-28T09:01:00.000Z' })],
      },
    ]);
    const first = renderApp('/', { preloadedState: loggedInAs(aUser()) });
    await openChat(first.user);
    await screen.findByText(seen.text);
    first.unmount();
    server.on('GET support/conversations/mine', [
      200,
      {
        conversation,
        messages: [
          seen,
          aMessage({ createdAt: '2026-11-28T10:00:00.000Z' }),
          aMessage({ from: 'system', createdAt: '2026-11-28T10:01:00.000Z' }),
          aMessage({ from: 'investor', createdAt: '2026-11-28T10:02:00.000Z' }),
        ],
      },
    ]);
    const { store } = renderApp('/', { preloadedState: loggedInAs(aUser()) });
    const button = await screen.findByRole('button', { name: 'Chat with support, 2 unread' });
    expect(within(button).getByTestId('chat-unread')).toHaveTextContent('2');
    pushLive(
      store,
      { event: 'support/message', payload: { message: aMessage() } },
      // the investor's own message and an internal note are not unread replies
      { event: 'support/message', payload: { message: aMessage({ from: 'investor' }) } },
      { event: 'support/message', payload: { message: aMessage({ internal: true }) } },
    );
    expect(await screen.findByRole('button', { name: 'Chat with support, 3 unread' })).toBeInTheDocument();
  });

  it('is a keyboard button that opens the panel; Escape closes it and gives focus back', async () => {
    server.on('GET support/conversations/mine', [200, { conversation: null, messages: [] }]);
    const { user } = renderApp('/plans', { preloadedState: loggedInAs(aUser()) });
    const button = await screen.findByRole('button', { name: 'Chat with support' });
    button.focus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'Support' });
    await vi.waitFor(() =>
      expect(within(dialog).getByRole('textbox', { name: 'Message to support' })).toHaveFocus(),
    );
    // the server's config names no business hours: no availability line
    expect(within(dialog).queryByText(/^Support is/)).not.toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Chat with support' })).toHaveFocus();
  });

  it('gives way to the third-party widget for visitors when the server names one', async () => {
    server.on('GET support/config', [200, { liveChatScriptUrl: 'https://widget.example.com/chat.js' }]);
    renderApp('/');
    await vi.waitFor(() =>
      expect(document.querySelector('script[data-live-chat]')).toHaveAttribute(
        'src',
        'https://widget.example.com/chat.js',
      ),
    );
    expect(screen.queryByRole('button', { name: /Chat with support/ })).not.toBeInTheDocument();
  });

  it('says when support is next available', async () => {
    server.on('GET support/conversations/mine', [200, { conversation: null, messages: [] }]);
    server.on('GET support/config', [200, { online: false, nextAvailableAt: '2026-11-30T09:00:00' }]);
    const { user } = renderApp('/', { preloadedState: loggedInAs(aUser()) });
    const dialog = await openChat(user);
    expect(within(dialog).getByText('Support is away. Back Monday 9:00 AM.')).toBeInTheDocument();
  });
});

describe('the chat panel', () => {
  it('asks a visitor for name and email first, then opens the conversation', async () => {
    server.on('GET support/conversations/mine', [401, { message: 'Not authorized, please login' }]);
    server.on('POST support/conversations/visitor', [
      200,
      {
        conversation,
        messages: [aMessage({ from: 'system', text: 'Welcome! Support will be with you soon.' })],
      },
    ]);
    const { user } = renderApp('/');
    const dialog = await openChat(user);
    const form = await within(dialog).findByRole('form', { name: 'Start a chat' });
    await user.type(within(form).getByLabelText('Message'), 'Where do I send my deposit?');
    await user.click(within(form).getByRole('button', { name: CHAT_TEXT.start }));
    expect(within(form).getByRole('alert')).toHaveTextContent(CHAT_TEXT.nameRequired);
    await user.type(within(form).getByLabelText('Name'), 'Vera Visitor');
    await user.type(within(form).getByLabelText('Email'), 'vera@example');
    await user.click(within(form).getByRole('button', { name: CHAT_TEXT.start }));
    expect(within(form).getByRole('alert')).toHaveTextContent(MESSAGES.invalidEmail);
    expect(server.callsTo('POST support/conversations/visitor')).toHaveLength(0);
    await user.type(within(form).getByLabelText('Email'), '.com');
    await user.click(within(form).getByRole('button', { name: CHAT_TEXT.start }));
    expect(await within(dialog).findByText('Welcome! Support will be with you soon.')).toBeInTheDocument();
    expect(server.callsTo('POST support/conversations/visitor')[0]?.body).toEqual({
      name: 'Vera Visitor',
      email: 'vera@example.com',
      text: 'Where do I send my deposit?',
    });
    expect(within(dialog).getByRole('textbox', { name: 'Message to support' })).toBeInTheDocument();
  });

  it("opens from the reply email's link, making this browser the visitor's first", async () => {
    let resumed = false;
    server.on('POST support/conversations/visitor/resume', () => {
      resumed = true;
      return [200, { conversation, messages: [] }];
    });
    server.on('GET support/conversations/mine', () =>
      resumed
        ? [200, { conversation, messages: [aMessage({ text: 'We replied while you were away' })] }]
        : [401, { message: 'Start a conversation first' }],
    );
    const { router } = renderApp('/?support=abc.secret');
    const dialog = await screen.findByRole('dialog', { name: 'Support' });
    expect(await within(dialog).findByText('We replied while you were away')).toBeInTheDocument();
    expect(server.callsTo('POST support/conversations/visitor/resume')[0]?.body).toEqual({
      token: 'abc.secret',
    });
    await vi.waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('sends with Enter, keeps Shift+Enter as a new line, and shows the message', async () => {
    server.on('GET support/conversations/mine', [200, { conversation: null, messages: [] }]);
    server.on('POST support/conversations/mine/messages', (call) => [
      201,
      { message: aMessage({ from: 'investor', text: (call.body as { text: string }).text }) },
    ]);
    const { user } = renderApp('/dashboard', { preloadedState: loggedInAs(aUser()) });
    const dialog = await openChat(user);
    const field = await within(dialog).findByRole('textbox', { name: 'Message to support' });
    await user.type(field, 'I would like to deposit.{Shift>}{Enter}{/Shift}Which address?');
    expect(server.callsTo('POST support/conversations/mine/messages')).toHaveLength(0);
    await user.keyboard('{Enter}');
    await vi.waitFor(() => expect(field).toHaveValue(''));
    expect(server.callsTo('POST support/conversations/mine/messages')[0]?.body).toEqual({
      text: 'I would like to deposit.\nWhich address?',
    });
    const sent = within(dialog).getByTestId('chat-message');
    expect(sent).toHaveTextContent('You');
    expect(sent).toHaveTextContent('I would like to deposit. Which address?');
  });

  it('attaches a screenshot with the text typed so far, and shows files as download links', async () => {
    const attachment = {
      _id: 'f1',
      name: 'transfer.png',
      kind: 'png' as const,
      size: 48_000,
      url: '/api/support/attachments/f1',
    };
    server.on('GET support/conversations/mine', [
      200,
      {
        conversation,
        messages: [
          aMessage({
            text: 'How to send',
            attachment: {
              ...attachment,
              _id: 'f0',
              name: 'steps.pdf',
              kind: 'pdf',
              url: '/api/support/attachments/f0',
            },
          }),
        ],
      },
    ]);
    server.on('POST support/conversations/mine/attachments', [
      201,
      { message: aMessage({ from: 'investor', text: 'Here it is', attachment }) },
    ]);
    const { user } = renderApp('/dashboard', { preloadedState: loggedInAs(aUser()) });
    const dialog = await openChat(user);
    const pdf = await within(dialog).findByRole('link', { name: 'Download steps.pdf 47 KB' });
    expect(pdf).toHaveAttribute('href', '/api/support/attachments/f0');
    expect(within(pdf).queryByRole('img')).toBeNull();

    const field = within(dialog).getByRole('textbox', { name: 'Message to support' });
    await user.type(field, 'Here it is');
    expect(within(dialog).getByRole('button', { name: COMPOSER_TEXT.attach })).toBeEnabled();
    const picker = within(dialog).getByTestId('composer-file');
    // over 10 MB: refused in the browser, nothing sent
    const big = new File([new Uint8Array(10_485_761)], 'big.pdf', { type: 'application/pdf' });
    await user.upload(picker, big);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(COMPOSER_TEXT.fileTooLarge);
    expect(server.callsTo('POST support/conversations/mine/attachments')).toHaveLength(0);

    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'transfer.png', { type: 'image/png' });
    await user.upload(picker, png);
    await vi.waitFor(() => expect(field).toHaveValue(''));
    const form = server.callsTo('POST support/conversations/mine/attachments')[0]?.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(form.get('text')).toBe('Here it is');
    expect((form.get('file') as File).name).toBe('transfer.png');
    const link = await within(dialog).findByRole('link', { name: 'Download transfer.png 47 KB' });
    expect(link).toHaveAttribute('href', attachment.url);
    expect(within(link).getByRole('presentation')).toHaveAttribute('src', attachment.url);
  });

  it('counts characters and refuses a message over 2,000 of them', async () => {
    server.on('GET support/conversations/mine', [200, { conversation, messages: [] }]);
    const { user } = renderApp('/', { preloadedState: loggedInAs(aUser()) });
    const dialog = await openChat(user);
    const field = await within(dialog).findByRole('textbox', { name: 'Message to support' });
    await user.click(field);
    await user.paste('x'.repeat(2000));
    expect(within(dialog).getByText('2,000 / 2,000')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Send' })).toBeEnabled();
    await user.paste('y');
    expect(within(dialog).getByText('2,001 / 2,000')).toBeInTheDocument();
    expect(within(dialog).getByRole('alert')).toHaveTextContent(COMPOSER_TEXT.tooLong);
    expect(within(dialog).getByRole('button', { name: 'Send' })).toBeDisabled();
    await user.keyboard('{Enter}');
    expect(server.callsTo('POST support/conversations/mine/messages')).toHaveLength(0);
  });

  it('shows HTML as text and makes only http(s) links, opened without opener or referrer', async () => {
    server.on('GET support/conversations/mine', [
      200,
      {
        conversation,
        messages: [
          aMessage({
            text: '<script>alert(1)</script> <b>bold</b> see https://meridian.example/help. or javascript:alert(2)',
          }),
        ],
      },
    ]);
    const { user } = renderApp('/', { preloadedState: loggedInAs(aUser()) });
    const dialog = await openChat(user);
    const message = await within(dialog).findByTestId('chat-message');
    expect(message).toHaveTextContent('<script>alert(1)</script> <b>bold</b>');
    expect(message.querySelector('script, b')).toBeNull();
    const links = within(message).getAllByRole('link');
    expect(links).toHaveLength(1);
    expect(links[0]).toHaveAttribute('href', 'https://meridian.example/help');
    expect(links[0]).toHaveAttribute('rel', 'noopener noreferrer nofollow');
    expect(links[0]).toHaveAttribute('target', '_blank');
  });

  it('shows a deposit address with network, QR code, a copy button and the one-asset warning', async () => {
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    server.on('GET support/conversations/mine', [
      200,
      {
        conversation,
        messages: [
          aMessage({
            text: 'Here is your deposit address.',
            depositAddress: { network: 'erc20', address, addressId: 'a1', label: 'USDT' },
          }),
        ],
      },
    ]);
    const writeText = vi.fn(async () => undefined);
    const { user } = renderApp('/', { preloadedState: loggedInAs(aUser()) });
    clipboard(writeText);
    const dialog = await openChat(user);
    const card = await within(dialog).findByRole('group', {
      name: 'Deposit address on Ethereum ERC-20 token',
    });
    expect(card).toHaveTextContent(address);
    expect(within(card).getByRole('img', { name: /QR code/ })).toBeInTheDocument();
    expect(card).toHaveTextContent(ADDRESS_CARD_TEXT.warning('USDT', 'Ethereum (ERC-20)'));
    await user.click(within(card).getByRole('button', { name: ADDRESS_CARD_TEXT.copy }));
    expect(writeText).toHaveBeenCalledWith(address);
    expect(await within(card).findByText(ADDRESS_CARD_TEXT.copied)).toBeInTheDocument();
  });

  it('adds replies pushed live, shows support typing, and never shows an internal note', async () => {
    server.on('GET support/conversations/mine', [200, { conversation, messages: [] }]);
    const { user, store } = renderApp('/', { preloadedState: loggedInAs(aUser()) });
    const dialog = await openChat(user);
    await within(dialog).findByRole('textbox', { name: 'Message to support' });
    pushLive(store, {
      event: 'support/typing',
      payload: { conversationId: 'c1', from: 'support', typing: true },
    });
    expect(await within(dialog).findByText(CHAT_TEXT.typing)).toBeInTheDocument();
    pushLive(
      store,
      {
        event: 'support/message',
        payload: { message: aMessage({ text: 'Internal', internal: true }) },
      },
      { event: 'support/message', payload: { message: aMessage({ text: 'Here now' }) } },
      {
        event: 'support/message',
        payload: { message: aMessage({ conversationId: 'c2', text: 'Other' }) },
      },
    );
    expect(await within(dialog).findByText('Here now')).toBeInTheDocument();
    expect(within(dialog).queryByText(CHAT_TEXT.typing)).not.toBeInTheDocument();
    expect(within(dialog).queryByText('Internal')).not.toBeInTheDocument();
    expect(within(dialog).queryByText('Other')).not.toBeInTheDocument();
  });
});
