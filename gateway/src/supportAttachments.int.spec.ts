/**
 * Attachments of the support chat through HTTP (http/supportRoutes.ts, fileUpload.ts, the support
 * service's app/attachments.ts): a screenshot or PDF judged by its content, stored privately (files under
 * DATA_DIR/support-attachments, sealed), refused with a clear error and nothing stored when it is not what
 * it claims or too large, and served as an attachment under a sandboxing CSP to the conversation's person
 * and admins only.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { testPng } from '@meridian/platform/testing/testImage';
import {
  adminBrowser,
  generousGatewayLimits,
  startTestComposition,
  type TestComposition,
} from './testing/composition.js';
import { HttpSession } from './testing/httpSession.js';
import { openSocket, verifiedUser } from './testing/money.js';
import { LIVE_EVENTS } from './live/pushContract.js';

const MESSAGES = {
  invalidFormat:
    'This file is not an image or a PDF (judged by its content): attach a screenshot (JPEG, PNG, GIF, WebP, BMP, HEIC) or a PDF',
  tooLarge: 'File size must be less than 10MB.',
  notFound: 'Attachment not found',
  noFile: 'Please choose a file to attach',
};
const MAX_BYTES = 10_485_760;
const PNG = testPng(640, 120);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');

let t: TestComposition;
let admin: HttpSession;
const dir = tempDir('meridian-support-attachments-');

beforeAll(async () => {
  t = await startTestComposition({ dataDir: dir.path });
  admin = await adminBrowser(t.url);
}, 120_000);

afterAll(async () => {
  await t?.stop();
  dir.remove();
});

/** Every file the support service keeps (each a sealed .bin beside its .json). */
function storedFiles(): string[] {
  const root = join(dir.path, 'support-attachments');
  try {
    return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.bin'));
  } catch {
    return [];
  }
}

function form(file: Buffer | null, name: string, fields: Record<string, string> = {}, type = 'image/png') {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  if (file) f.set('file', new Blob([new Uint8Array(file)], { type }), name);
  return f;
}

const attach = (b: HttpSession, file: Buffer | null, name: string, fields?: Record<string, string>) =>
  b.postForm('/api/support/conversations/mine/attachments', form(file, name, fields));

async function download(b: HttpSession, url: string) {
  const res = await fetch(new URL(url, t.url), { headers: { cookie: b.cookieHeader() } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('support attachments', () => {
  it('an investor sends a screenshot with a text; it is stored sealed and served to them and to admins as an attachment', async () => {
    const investor = await verifiedUser(t.url);
    const adminSocket = await openSocket(t.url, admin);
    const before = storedFiles().length;
    const sent = await attach(investor.browser, PNG, '../my transfer <img>.html', {
      text: 'Here is the transfer',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const attachment = sent.body.message.attachment;
    expect(attachment).toEqual({
      _id: expect.any(String),
      name: 'my transfer _img.png',
      kind: 'png',
      size: PNG.length,
      url: `/api/support/attachments/${attachment._id}`,
    });
    expect(sent.body.message.text).toBe('Here is the transfer');
    // pushed live to the admins with the same attachment (its name opened, never sealed)
    const pushed = await adminSocket.waitFor(
      (p) =>
        p.event === LIVE_EVENTS.supportMessage &&
        (p.payload.message as { _id?: string } | undefined)?._id === sent.body.message._id,
      'support/message with the attachment',
    );
    adminSocket.close();
    expect((pushed.payload.message as { attachment: unknown }).attachment).toEqual(attachment);
    expect(storedFiles()).toHaveLength(before + 1);
    // stored sealed: the file's bytes are not the screenshot's
    const stored = storedFiles().map((n) => join(dir.path, 'support-attachments', n));
    const { readFileSync } = await import('node:fs');
    expect(stored.some((p) => readFileSync(p).equals(PNG))).toBe(false);

    const mine = (await investor.browser.get('/api/support/conversations/mine')).body;
    expect(mine.messages.at(-1).attachment).toEqual(attachment);
    expect(mine.conversation.lastMessageText).toBe('Here is the transfer');

    for (const reader of [investor.browser, admin]) {
      const got = await download(reader, attachment.url);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(PNG)).toBe(true);
      expect(got.headers.get('content-type')).toBe('image/png');
      expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename="my transfer _img\.png"/);
      expect(got.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('a file alone is a message; admins attach too (a PDF), and an internal note’s file is for admins only', async () => {
    const investor = await verifiedUser(t.url);
    const alone = await attach(investor.browser, PDF, 'receipt.pdf');
    expect(alone.status, JSON.stringify(alone.body)).toBe(201);
    expect(alone.body.message).toMatchObject({ text: '', attachment: { kind: 'pdf', name: 'receipt.pdf' } });
    const conversationId = alone.body.conversation._id as string;
    expect(alone.body.conversation.lastMessageText).toBe('receipt.pdf');

    const reply = await admin.postForm(
      `/api/support/conversations/${conversationId}/attachments`,
      form(PDF, 'how-to.pdf', { text: 'Follow these steps' }, 'application/pdf'),
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.message).toMatchObject({ from: 'support', attachment: { kind: 'pdf' } });
    const replyFile = await download(investor.browser, reply.body.message.attachment.url);
    expect(replyFile.status).toBe(200);
    expect(replyFile.headers.get('content-type')).toBe('application/pdf');
    expect(replyFile.bytes.equals(PDF)).toBe(true);

    const note = await admin.postForm(
      `/api/support/conversations/${conversationId}/attachments`,
      form(PNG, 'internal.png', { internal: 'true' }),
    );
    expect(note.status).toBe(201);
    expect(note.body.message.internal).toBe(true);
    expect((await download(admin, note.body.message.attachment.url)).status).toBe(200);
    const hidden = await download(investor.browser, note.body.message.attachment.url);
    expect(hidden.status).toBe(404);
    const mine = (await investor.browser.get('/api/support/conversations/mine')).body;
    expect(mine.messages.map((m: { attachment: { name: string } }) => m.attachment?.name)).toEqual([
      'receipt.pdf',
      'how-to.pdf',
    ]);
  });

  it('a file that is not what it claims is refused with a clear error and nothing is stored', async () => {
    const investor = await verifiedUser(t.url);
    const before = storedFiles().length;
    const fakes: Array<[Buffer, string]> = [
      [Buffer.from('<html><script>alert(1)</script></html>'), 'screenshot.png'],
      [Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]), 'transfer.pdf'],
      [Buffer.from('GIF89a'), 'tiny.gif'],
    ];
    for (const [bytes, name] of fakes) {
      const res = await attach(investor.browser, bytes, name, { text: 'see attached' });
      expect(res.status, name).toBe(400);
      expect(res.body.message, name).toBe(
        name === 'tiny.gif'
          ? 'The image could not be read: attach a screenshot (JPEG, PNG, GIF, WebP, BMP, HEIC) or a PDF'
          : MESSAGES.invalidFormat,
      );
    }
    const empty = await attach(investor.browser, Buffer.alloc(0), 'empty.png');
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe(MESSAGES.noFile);
    const none = await attach(investor.browser, null, '', { text: 'no file' });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe(MESSAGES.noFile);
    const notMultipart = await investor.browser.post('/api/support/conversations/mine/attachments', {
      text: 'json',
    });
    expect(notMultipart.status).toBe(400);

    expect(storedFiles()).toHaveLength(before);
    expect((await investor.browser.get('/api/support/conversations/mine')).body).toEqual({
      conversation: null,
      messages: [],
    });
  });

  it('more than 10 MB is refused (413) and nothing is stored; exactly 10 MB is taken', async () => {
    const investor = await verifiedUser(t.url);
    const before = storedFiles().length;
    const over = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_BYTES - 8)]);
    const res = await attach(investor.browser, over, 'big.pdf');
    expect(res.status).toBe(413);
    expect(res.body.message).toBe(MESSAGES.tooLarge);
    expect(storedFiles()).toHaveLength(before);
    expect((await investor.browser.get('/api/support/conversations/mine')).body.conversation).toBeNull();

    const exact = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_BYTES - 9)]);
    const ok = await attach(investor.browser, exact, 'exact.pdf');
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.message.attachment.size).toBe(MAX_BYTES);
    const got = await download(admin, ok.body.message.attachment.url);
    expect(got.status, got.bytes.subarray(0, 300).toString()).toBe(200);
    expect(got.bytes.length).toBe(MAX_BYTES);
  });

  it("someone else's attachment is 404: another investor, a visitor, an unknown id (401 with no session at all)", async () => {
    const investor = await verifiedUser(t.url);
    const other = await verifiedUser(t.url);
    const sent = await attach(investor.browser, PNG, 'mine.png');
    const url = sent.body.message.attachment.url as string;

    const visitor = new HttpSession(t.url);
    const started = await visitor.post('/api/support/conversations/visitor', {
      name: 'Vera Visitor',
      email: `vera.${Date.now()}@example.com`,
      text: 'Hello',
    });
    expect(started.status).toBe(201);

    for (const stranger of [other.browser, visitor]) {
      const res = await download(stranger, url);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.bytes.toString())).toEqual({ message: MESSAGES.notFound });
    }
    // no one signed in and no visitor cookie: not logged in
    expect((await download(new HttpSession(t.url), url)).status).toBe(401);
    expect((await download(investor.browser, '/api/support/attachments/no-such-file')).status).toBe(404);

    // the visitor attaches to their own conversation and reads it back; the investor cannot
    const visitorFile = await attach(visitor, PNG, 'visitor.png');
    expect(visitorFile.status, JSON.stringify(visitorFile.body)).toBe(201);
    const visitorUrl = visitorFile.body.message.attachment.url as string;
    expect((await download(visitor, visitorUrl)).status).toBe(200);
    expect((await download(admin, visitorUrl)).status).toBe(200);
    expect((await download(investor.browser, visitorUrl)).status).toBe(404);
  });
});

describe('support attachments: the upload limit', () => {
  let limited: TestComposition | undefined;
  afterAll(async () => {
    await limited?.stop();
  });

  it('refuses uploads over supportAttachment (429 with Retry-After): no third message', async () => {
    limited = await startTestComposition({
      gateway: {
        rateLimits: { ...generousGatewayLimits, supportAttachment: { max: 2, windowMs: 60 * 60_000 } },
      },
    });
    const investor = await verifiedUser(limited.url);
    const post = () =>
      investor.browser.postForm('/api/support/conversations/mine/attachments', form(PNG, 'shot.png'));
    expect((await post()).status).toBe(201);
    expect((await post()).status).toBe(201);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const mine = (await investor.browser.get('/api/support/conversations/mine')).body;
    expect(mine.messages).toHaveLength(2);
  }, 120_000);
});
