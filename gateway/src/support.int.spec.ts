/**
 * The support chat through HTTP and sockets (http/supportRoutes.ts, the support service, live pushes):
 * the investor's conversation and its rules, the admins' inbox and its side panel, internal notes, claims
 * on replies, the deposit address book and a deposit declared to a given address, visitors (pre-chat,
 * emailed link, joining the account, blocking, rate limits) and the offline reply email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminBrowser,
  generousGatewayLimits,
  registerUser,
  signIn,
  startTestComposition,
  userWithRole,
  type TestComposition,
} from './testing/composition.js';
import { HttpSession, listMail, linkWith, waitForMail } from './testing/httpSession.js';
import { openSocket, requestDeposit, verifiedUser, waitFor, type RecordingSocket } from './testing/money.js';
import { LIVE_EVENTS } from './live/pushContract.js';
import { testPng } from '@meridian/platform/testing/testImage';

/** Known mainnet addresses that pass their network's check. */
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
/**
 * Visitor conversations one client address may start in the hour: the three earlier cases' starts (side
 * panel, link back, block) and one more, so the limit case sees one start accepted before the refusals.
 */
const VISITOR_STARTS = 4;

let t: TestComposition;
let admin: HttpSession;
const sockets: RecordingSocket[] = [];

beforeAll(async () => {
  t = await startTestComposition({
    gateway: {
      rateLimits: {
        ...generousGatewayLimits,
        supportVisitorStart: { max: VISITOR_STARTS, windowMs: 60 * 60_000 },
      },
    },
  });
  admin = await adminBrowser(t.url);
}, 120_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  await t?.stop();
});

const socketOf = async (browser: HttpSession) => {
  const s = await openSocket(t.url, browser);
  sockets.push(s);
  return s;
};

const supportPush = (s: RecordingSocket, text: string) =>
  s.waitFor(
    (p) =>
      p.event === LIVE_EVENTS.supportMessage &&
      (p.payload.message as { text?: string } | undefined)?.text === text,
    `support/message "${text}"`,
  );

/**
 * A visitor (a fresh browser, no account) starts a conversation as `name` from a new address
 * `<mailbox>.<now>@example.com` with `text`; the visitor's session, that email and the answer.
 */
async function visitorStarts(name: string, mailbox: string, text: string) {
  const visitor = new HttpSession(t.url);
  const email = `${mailbox}.${Date.now()}@example.com`;
  const started = await visitor.post('/api/support/conversations/visitor', { name, email, text });
  return { visitor, email, started };
}

async function addAddress(network: string, label: string, address: string): Promise<string> {
  const res = await admin.post('/api/admin/deposit-addresses', { network, label, address });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.address._id as string;
}

describe('an investor and support', () => {
  it('a stranger (no session, no visitor cookie) is refused 401 before their message is read, whatever it holds', async () => {
    const stranger = new HttpSession(t.url);
    for (const body of [{ text: 'Hello?' }, { text: '   ' }, { text: 7 }, {}]) {
      const res = await stranger.post('/api/support/conversations/mine/messages', body);
      expect({ body, status: res.status }).toEqual({ body, status: 401 });
    }
  });

  it('mine is null before the first message; bad text is refused and stores nothing; the first message opens it', async () => {
    const investor = await verifiedUser(t.url);
    const b = investor.browser;
    expect((await b.get('/api/support/conversations/mine')).body).toEqual({
      conversation: null,
      messages: [],
    });

    for (const [text, message] of [
      ['   ', 'Please write a message'],
      ['x'.repeat(2_001), 'A message must be at most 2,000 characters'],
    ] as const) {
      const res = await b.post('/api/support/conversations/mine/messages', { text });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message });
    }
    expect((await b.post('/api/support/conversations/mine/messages', { text: 7 })).status).toBe(400);
    expect((await b.get('/api/support/conversations/mine')).body.conversation).toBeNull();

    const html = '<img src=x onerror=alert(1)> Where do I send my deposit?';
    const sent = await b.post('/api/support/conversations/mine/messages', { text: `  ${html}  ` });
    expect(sent.status).toBe(201);
    const mine = (await b.get('/api/support/conversations/mine')).body;
    expect(mine.conversation).toMatchObject({ userId: investor.id, status: 'open', unread: 1 });
    expect(mine.messages).toEqual([
      expect.objectContaining({
        _id: sent.body.message._id,
        conversationId: mine.conversation._id,
        from: 'investor',
        text: html,
        createdAt: expect.any(String),
      }),
    ]);
  });

  it('admins see it in the inbox, reply live, write notes the investor never sees; others get 404 or 403', async () => {
    const investor = await verifiedUser(t.url);
    const other = await verifiedUser(t.url);
    const b = investor.browser;
    const investorSocket = await socketOf(b);
    const adminSocket = await socketOf(admin);

    await b.post('/api/support/conversations/mine/messages', { text: 'Hello, I need a wallet address' });
    const pushed = await supportPush(adminSocket, 'Hello, I need a wallet address');
    const conversationId = pushed.payload.conversationId as string;

    const inbox = await admin.get('/api/support/conversations?status=open&assigned=none');
    expect(inbox.status).toBe(200);
    expect(inbox.body.conversations.map((c: { _id: string }) => c._id)).toContain(conversationId);
    expect((await admin.get('/api/support/conversations?status=bogus')).status).toBe(400);
    expect((await admin.get('/api/support/unread')).body.count).toBeGreaterThanOrEqual(1);

    const reply = await admin.post(`/api/support/conversations/${conversationId}/messages`, {
      text: 'Hello! Here to help.',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.message).toMatchObject({ from: 'support', internal: false });
    await supportPush(investorSocket, 'Hello! Here to help.');

    const note = await admin.post(`/api/support/conversations/${conversationId}/messages`, {
      text: 'Checked: KYC pending',
      internal: true,
    });
    expect(note.status).toBe(201);
    await supportPush(adminSocket, 'Checked: KYC pending');
    const mine = (await b.get('/api/support/conversations/mine')).body;
    expect(mine.messages.map((m: { text: string }) => m.text)).toEqual([
      'Hello, I need a wallet address',
      'Hello! Here to help.',
    ]);
    expect(investorSocket.pushes.some((p) => JSON.stringify(p.payload).includes('KYC pending'))).toBe(false);
    const full = (await admin.get(`/api/support/conversations/${conversationId}`)).body;
    expect(full.messages.map((m: { internal: boolean }) => m.internal)).toEqual([false, false, true]);

    // another investor reaches only their own conversation; the admin paths are not theirs
    expect((await other.browser.get('/api/support/conversations/mine')).body.conversation).toBeNull();
    expect((await other.browser.get(`/api/support/conversations/${conversationId}`)).status).toBe(403);
    expect(
      (await other.browser.post(`/api/support/conversations/${conversationId}/messages`, { text: 'hi' }))
        .status,
    ).toBe(403);
    expect((await admin.get('/api/support/conversations/no-such-conversation')).status).toBe(404);
  });

  it("the inbox side panel shows an investor's balances, KYC status and pending deposit; a visitor has none; an investor is refused", async () => {
    const investor = await verifiedUser(t.url, { name: 'Panel Investor' });
    const depositId = await requestDeposit(investor.browser, '150');
    const adminSocket = await socketOf(admin);
    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Where is my deposit?' });
    const id = (await supportPush(adminSocket, 'Where is my deposit?')).payload.conversationId as string;

    const panel = await admin.get(`/api/support/conversations/${id}/summary`);
    expect(panel.status).toBe(200);
    expect(panel.body).toEqual({
      conversationId: id,
      userId: investor.id,
      name: 'Panel Investor',
      email: investor.email,
      balances: { balance: 0, investmentBalance: 0, totalMaturityAmount: 0 },
      kycStatus: 'Not Submitted',
      pending: {
        deposits: [expect.objectContaining({ _id: depositId, amount: 150, status: 'Pending' })],
        withdrawals: [],
      },
    });
    // the route's admin guard refuses before the support service is asked
    const refused = await investor.browser.get(`/api/support/conversations/${id}/summary`);
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: { message: 'Not authorized as an admin' },
    });

    const { email, started } = await visitorStarts('Paula Visitor', 'panel', 'Just looking');
    expect(started.status).toBe(201);
    const visitorId = started.body.conversation._id as string;
    const visitorPanel = await admin.get(`/api/support/conversations/${visitorId}/summary`);
    expect(visitorPanel.status).toBe(200);
    expect(visitorPanel.body).toEqual({
      conversationId: visitorId,
      userId: null,
      name: 'Paula Visitor',
      email,
      balances: null,
      kycStatus: null,
      pending: null,
    });
  });

  it("support's typing reaches the investor's socket; a non-admin's is ignored", async () => {
    const investor = await verifiedUser(t.url);
    const other = await verifiedUser(t.url);
    const investorSocket = await socketOf(investor.browser);
    const otherSocket = await socketOf(other.browser);
    const adminSocket = await socketOf(admin);
    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Typing test' });
    const id = (await supportPush(adminSocket, 'Typing test')).payload.conversationId as string;

    otherSocket.socket.emit(LIVE_EVENTS.supportTyping, { conversationId: id, typing: true });
    adminSocket.socket.emit(LIVE_EVENTS.supportTyping, { conversationId: id, typing: true });
    const typing = await investorSocket.waitFor((p) => p.event === LIVE_EVENTS.supportTyping, 'typing');
    expect(typing.payload).toEqual({ conversationId: id, from: 'support', typing: true });
    adminSocket.socket.emit(LIVE_EVENTS.supportTyping, { conversationId: id, typing: false });
    await investorSocket.waitFor(
      (p) => p.event === LIVE_EVENTS.supportTyping && p.payload.typing === false,
      'stopped typing',
    );
    expect(investorSocket.pushes.filter((p) => p.event === LIVE_EVENTS.supportTyping)).toHaveLength(2);
    expect(otherSocket.pushes.some((p) => p.event === LIVE_EVENTS.supportTyping)).toBe(false);
  });

  it("a reply claims an unheld conversation; another admin's reply is refused while it is held", async () => {
    const investor = await verifiedUser(t.url);
    const second = await userWithRole(t.url, admin, 'admin');
    const adminSocket = await socketOf(admin);
    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Claim me' });
    const id = (await supportPush(adminSocket, 'Claim me')).payload.conversationId as string;

    expect(
      (await second.browser.post(`/api/support/conversations/${id}/messages`, { text: 'Mine' })).status,
    ).toBe(201);
    const claims = (await admin.get('/api/admin/claims')).body.claims as Array<{ kind: string; id: string }>;
    expect(claims).toContainEqual(expect.objectContaining({ kind: 'support', id }));
    const refused = await admin.post(`/api/support/conversations/${id}/messages`, { text: 'Also mine' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/is being reviewed by/);
    // a note needs no claim
    expect(
      (await admin.post(`/api/support/conversations/${id}/messages`, { text: 'note', internal: true }))
        .status,
    ).toBe(201);
  });

  it('close, reopen and assign; support cannot reply to a closed conversation; the investor writing reopens it', async () => {
    const investor = await verifiedUser(t.url);
    const adminSocket = await socketOf(admin);
    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Close me' });
    const id = (await supportPush(adminSocket, 'Close me')).payload.conversationId as string;

    const assigned = await admin.post(`/api/support/conversations/${id}/assign`, { assigneeId: 'me' });
    expect(assigned.status).toBe(200);
    expect(assigned.body.conversation.assigneeId).toBeTruthy();
    const mineList = (await admin.get('/api/support/conversations?status=open&assigned=me')).body
      .conversations;
    expect(mineList.map((c: { _id: string }) => c._id)).toContain(id);

    expect((await admin.post(`/api/support/conversations/${id}/close`)).body.conversation.status).toBe(
      'closed',
    );
    expect((await admin.post(`/api/support/conversations/${id}/close`)).status).toBe(409);
    const closedReply = await admin.post(`/api/support/conversations/${id}/messages`, { text: 'Late' });
    expect(closedReply.status).toBe(409);
    expect(closedReply.body.message).toBe('This conversation is closed: reopen it to reply');
    const closed = (await admin.get('/api/support/conversations?status=closed')).body.conversations;
    expect(closed.map((c: { _id: string }) => c._id)).toContain(id);

    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Back again' });
    expect((await admin.get(`/api/support/conversations/${id}`)).body.conversation.status).toBe('open');
  });

  it('an admin impersonating the investor reads their conversation but cannot write in it, text or file', async () => {
    const investor = await verifiedUser(t.url);
    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'My own words' });
    const impersonator = await userWithRole(t.url, admin, 'admin');
    await signIn(impersonator.browser, impersonator.email, impersonator.password);
    expect((await impersonator.browser.post(`/api/users/impersonate/${investor.id}`)).status).toBe(200);
    const as = impersonator.browser;

    const seen = await as.get('/api/support/conversations/mine');
    expect(seen.status).toBe(200);
    expect(seen.body.messages.map((m: { text: string }) => m.text)).toEqual(['My own words']);
    const form = new FormData();
    form.append('text', 'Here is my transfer');
    form.append('file', new Blob([new Uint8Array(testPng(400, 300))], { type: 'image/png' }), 'transfer.png');
    for (const res of [
      await as.post('/api/support/conversations/mine/messages', { text: 'Words not theirs' }),
      await as.postForm('/api/support/conversations/mine/attachments', form),
    ])
      expect({ status: res.status, message: res.body.message }).toEqual({
        status: 403,
        message: 'Messages cannot be sent while impersonating a user',
      });
    expect((await investor.browser.get('/api/support/conversations/mine')).body.messages).toHaveLength(1);
  });
});

describe('deposit addresses', () => {
  it('the book checks each address; a given address is sent as a structured message; a retired one is refused', async () => {
    const bad = await admin.post('/api/admin/deposit-addresses', {
      network: 'tron',
      label: 'USDT TRC-20',
      address: `${TRON.slice(0, -1)}u`,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/TRON/);
    const before = (await admin.get('/api/admin/deposit-addresses')).body.addresses.length;
    expect((await admin.get('/api/admin/deposit-addresses')).body.addresses).toHaveLength(before);

    const tronId = await addAddress('tron', 'USDT (TRC-20)', TRON);
    const ethId = await addAddress('ethereum', 'ETH', ETH);
    const investor = await verifiedUser(t.url);
    const investorSocket = await socketOf(investor.browser);
    const adminSocket = await socketOf(admin);
    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Address please' });
    const id = (await supportPush(adminSocket, 'Address please')).payload.conversationId as string;

    const sent = await admin.post(`/api/support/conversations/${id}/deposit-address`, { addressId: tronId });
    expect(sent.status).toBe(201);
    expect(sent.body.message.depositAddress).toEqual({
      addressId: tronId,
      network: 'tron',
      address: TRON,
      label: 'USDT (TRC-20)',
    });
    const pushed = await investorSocket.waitFor(
      (p) =>
        p.event === LIVE_EVENTS.supportMessage &&
        (p.payload.message as { depositAddress?: { addressId: string } }).depositAddress?.addressId ===
          tronId,
    );
    expect((pushed.payload.message as { text: string }).text).toContain(TRON);

    const retired = await admin.post(`/api/admin/deposit-addresses/${ethId}/retire`);
    expect(retired.status).toBe(200);
    expect(retired.body.address.status).toBe('retired');
    const refused = await admin.post(`/api/support/conversations/${id}/deposit-address`, {
      addressId: ethId,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('This address is retired: choose an active one');
    expect((await admin.get(`/api/support/conversations/${id}`)).body.messages).toHaveLength(2);

    // the declaration names the address it was given; the admin's deposit shows it
    const declared = await investor.browser.post('/api/payments/create', {
      amount: '150',
      addressId: tronId,
    });
    expect(declared.status).toBe(201);
    expect(declared.body.transaction.sentTo).toEqual({ network: 'tron', address: TRON, addressId: tronId });
    const detail = await admin.get(`/api/payments/viewPaymentStatus/${declared.body.transactionId}`);
    expect(detail.body.transaction.sentTo).toEqual({ network: 'tron', address: TRON, addressId: tronId });
    const pending = (await admin.get('/api/payments/pending-deposit')).body.deposit as Array<{
      _id: string;
      sentTo?: unknown;
    }>;
    expect(pending.find((d) => d._id === declared.body.transactionId)?.sentTo).toMatchObject({
      address: TRON,
    });

    // an address not given to this investor, or unknown: refused, nothing recorded
    const other = await verifiedUser(t.url);
    for (const addressId of [tronId, 'no-such-address']) {
      const res = await other.browser.post('/api/payments/create', { amount: '150', addressId });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('This deposit address was not given to you in your support conversation');
    }
    expect((await other.browser.get('/api/invest/getTransactionHistory')).body).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ amount: 150 })]),
    );
  });
});

describe('visitors', () => {
  it('start with name, email and a message, are emailed a link back, read replies, and join the account they verify', async () => {
    const adminSocket = await socketOf(admin);
    const { visitor, email, started } = await visitorStarts(
      'Vera Visitor',
      'visitor',
      'Can I deposit in USDT?',
    );
    expect(started.status).toBe(201);
    expect(started.body.conversation).toMatchObject({ userId: null, name: 'Vera Visitor', email });
    expect(visitor.cookie('meridian_support_visitor')).toBeTruthy();
    const id = started.body.conversation._id as string;
    await supportPush(adminSocket, 'Can I deposit in USDT?');
    // support types to the visitor (no socket: nobody to tell yet)
    adminSocket.socket.emit(LIVE_EVENTS.supportTyping, { conversationId: id, typing: true });

    // the emailed link opens the conversation in another browser
    const welcome = await waitForMail(t.url, email, (m) => m.links.some((l) => l.includes('support=')));
    const token = decodeURIComponent(linkWith(welcome, '?support=').url.split('?support=')[1]!);
    const elsewhere = new HttpSession(t.url);
    expect((await elsewhere.get('/api/support/conversations/mine')).status).toBe(401);
    const resumed = await elsewhere.post('/api/support/conversations/visitor/resume', { token });
    expect(resumed.status).toBe(200);
    expect(resumed.body.conversation._id).toBe(id);
    expect(
      (await elsewhere.post('/api/support/conversations/visitor/resume', { token: `${id}.forged` })).status,
    ).toBe(401);

    // a reply reaches the visitor (no socket): emailed once for the burst
    await admin.post(`/api/support/conversations/${id}/messages`, { text: 'Yes: on TRON or Ethereum.' });
    await admin.post(`/api/support/conversations/${id}/messages`, { text: 'Shall I send an address?' });
    await waitForMail(t.url, email, (m) => /support replied/i.test(m.subject));
    const mine = (await visitor.get('/api/support/conversations/mine')).body;
    expect(mine.messages.map((m: { text: string }) => m.text)).toEqual([
      'Can I deposit in USDT?',
      'Yes: on TRON or Ethereum.',
      'Shall I send an address?',
    ]);
    expect(
      (await visitor.post('/api/support/conversations/mine/messages', { text: 'Yes please' })).status,
    ).toBe(201);
    expect((await listMail(t.url, email)).filter((m) => /support replied/i.test(m.subject))).toHaveLength(1);

    // the visitor signs up with that email and verifies it: the conversation follows them
    const account = await verifiedUser(t.url, { email });
    const joined = (await account.browser.get('/api/support/conversations/mine')).body;
    expect(joined.conversation).toMatchObject({ _id: id, userId: account.id });
    expect(joined.messages.map((m: { text: string }) => m.text)).toContain('Yes please');
    // support's typing now reaches the account's socket
    const accountSocket = await socketOf(account.browser);
    adminSocket.socket.emit(LIVE_EVENTS.supportTyping, { conversationId: id, typing: true });
    const typing = await accountSocket.waitFor((p) => p.event === LIVE_EVENTS.supportTyping, 'typing');
    expect(typing.payload).toEqual({ conversationId: id, from: 'support', typing: true });
    // once joined it is the account's: the visitor cookie no longer writes to it
    expect((await visitor.post('/api/support/conversations/mine/messages', { text: 'again' })).status).toBe(
      403,
    );
  });

  it('an admin blocks a visitor, who can no longer write; an unverified account does not join', async () => {
    const { visitor, email, started } = await visitorStarts('Spammy', 'blocked', 'Buy cheap followers');
    const id = started.body.conversation._id as string;
    const unverified = await registerUser(t.url, { email });
    expect((await unverified.browser.get('/api/support/conversations/mine')).body.conversation).toBeNull();

    const blocked = await admin.post(`/api/support/conversations/${id}/block`);
    expect(blocked.status).toBe(200);
    expect(blocked.body.conversation).toMatchObject({ blocked: true, status: 'closed' });
    const refused = await visitor.post('/api/support/conversations/mine/messages', { text: 'more spam' });
    expect(refused.status).toBe(403);
    expect((await admin.get(`/api/support/conversations/${id}`)).body.messages).toHaveLength(1);
  });

  it('new conversations are limited per client address', async () => {
    let refused = 0;
    for (let i = 0; i <= VISITOR_STARTS; i++) {
      const res = await new HttpSession(t.url).post('/api/support/conversations/visitor', {
        name: 'Many',
        email: `many.${i}.${Date.now()}@example.com`,
        text: 'hello',
      });
      if (res.status === 429) refused++;
      else expect(res.status).toBe(201);
    }
    expect(refused).toBeGreaterThan(0);
  });
});

describe('the offline reply email', () => {
  it('an investor with no socket is emailed once per burst of replies, again after writing back', async () => {
    const investor = await verifiedUser(t.url);
    const adminSocket = await socketOf(admin);
    const replies = async () =>
      (await listMail(t.url, investor.email)).filter((m) => /support replied/i.test(m.subject));
    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Offline question' });
    const id = (await supportPush(adminSocket, 'Offline question')).payload.conversationId as string;
    await admin.post(`/api/support/conversations/${id}/messages`, { text: 'Answer one' });
    await admin.post(`/api/support/conversations/${id}/messages`, { text: 'Answer two' });
    const mail = await waitForMail(t.url, investor.email, (m) => /support replied/i.test(m.subject));
    expect(mail.links.some((l) => l.includes('support=open'))).toBe(true);

    await investor.browser.post('/api/support/conversations/mine/messages', { text: 'Thanks' });
    await admin.post(`/api/support/conversations/${id}/messages`, { text: 'Answer three' });
    await waitFor(async () => ((await replies()).length >= 2 ? true : null), {
      message: 'the second burst email',
    });
    expect(await replies()).toHaveLength(2);
  });
});
