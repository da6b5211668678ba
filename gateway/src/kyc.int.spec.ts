/**
 * KYC through the gateway, against the real standalone composition (identity, notification, kyc,
 * one in-process bus): multipart uploads streamed to the kyc service, documents only for their owner
 * and admins, the admin review over gRPC, live pushes, kycStatus on getUser, emails, erasure.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { listenOn } from '@meridian/platform/util/freePort';
import {
  ADMIN_EMAIL,
  adminBrowser,
  HttpSession,
  listMail,
  registerUser,
  startTestComposition,
  verifiedUser,
  waitForMail,
  type Account,
  type TestComposition,
} from './testing/composition.js';
import { onOneConnection, type RawRequest } from './testing/keepAlive.js';
import { testPng } from '@meridian/platform/testing/testImage';

// A real PNG (the kyc service reads its dimensions: at least 200 pixels a side).
const PNG = testPng();
const HTML_AS_PNG = Buffer.from(
  '<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>',
);
const MAX_BYTES = 10_485_760;

const MESSAGES = {
  uploaded: 'KYC documents uploaded successfully!',
  invalidFormat: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
  tooLarge: 'File size must be less than 10MB.',
  bothSides: 'Please upload both front and back documents.',
  verifyFirst: 'Please verify your email before uploading documents',
  underReview: 'Your documents are already under review',
  forbiddenDoc: 'Not authorized to view this document',
  notLoggedIn: 'Not authorized, please login',
  notAdmin: 'Not authorized as an admin',
};

let t: TestComposition;
let admin: HttpSession;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await startTestComposition();
  admin = await adminBrowser(t.url);
});

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t?.stop();
});

function form(files: { front?: Buffer; back?: Buffer; frontName?: string; backName?: string }): FormData {
  const f = new FormData();
  if (files.front)
    f.append(
      'front',
      new Blob([new Uint8Array(files.front)], { type: 'image/png' }),
      files.frontName ?? 'front.png',
    );
  if (files.back)
    f.append(
      'back',
      new Blob([new Uint8Array(files.back)], { type: 'image/png' }),
      files.backName ?? 'back.png',
    );
  return f;
}

const upload = (
  a: Account | HttpSession,
  files: Parameters<typeof form>[0],
  headers?: Record<string, string>,
) => ('browser' in a ? a.browser : a).postForm('/api/users/uploadKycDocuments', form(files), { headers });

async function getUser(a: Account) {
  const res = await a.browser.get('/api/users/getUser');
  expect(res.status).toBe(200);
  return res.body as { _id: string; kycStatus: string; kyc: { frontDoc: string; backDoc: string } };
}

/** GET a document as raw bytes (not through HttpSession, which decodes text). */
async function fetchDocument(path: string, cookie?: string, headers: Record<string, string> = {}) {
  const res = await fetch(new URL(path, t.url), { headers: { ...(cookie ? { cookie } : {}), ...headers } });
  const body = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    body,
    json: () => JSON.parse(body.toString('utf8')) as { message: string },
  };
}

/** A socket with the browser's session; resolves once the gateway said 'ready'. */
function openSocket(cookie: string): Promise<Socket & { got: Array<[string, any]> }> {
  const socket = connect(t.url, {
    path: '/socket.io',
    transports: ['websocket'],
    extraHeaders: { cookie },
    reconnection: false,
  }) as Socket & { got: Array<[string, any]> };
  socket.got = [];
  socket.onAny((event: string, payload: unknown) => socket.got.push([event, payload]));
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.on('ready', () => resolve(socket));
    socket.on('connect_error', reject);
  });
}

const kycMailsTo = async (to: string, about?: string) =>
  (await listMail(t.url, to)).filter(
    (m) => /KYC|identity/i.test(m.subject) && (!about || m.text.includes(about)),
  );

describe('KYC upload → review → decision', () => {
  it('the user uploads, the admin sees it live and approves once, getUser shows Approved, one email each', async () => {
    const user = await verifiedUser(t.url, { name: 'Kim Upload' });
    const adminSocket = await openSocket(admin.cookieHeader());
    const userSocket = await openSocket(user.browser.cookieHeader());
    expect((await getUser(user)).kycStatus).toBe('Not Submitted');

    const res = await upload(user, { front: PNG, back: PNG });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: MESSAGES.uploaded });

    // live: the admins' queue gets the item in the pending list's shape, the user gets the status
    const [, added] = await waitFor(() =>
      adminSocket.got.find(([e, p]) => e === 'queue/itemAdded' && p.item?._id === user.id),
    );
    expect(added).toEqual({
      queue: 'kyc',
      item: {
        _id: user.id,
        name: 'Kim Upload',
        email: user.email,
        kycStatus: 'Pending',
        kyc: {
          frontDoc: `/api/users/kyc/document/${user.id}/front`,
          backDoc: `/api/users/kyc/document/${user.id}/back`,
        },
        submittedAt: expect.any(String),
      },
      position: expect.any(String),
    });
    await waitFor(() =>
      userSocket.got.find(([e, p]) => e === 'status/changed' && p.kind === 'kyc' && p.status === 'Pending'),
    );
    await waitFor(() =>
      adminSocket.got.find(([e, p]) => e === 'status/changed' && p.id === user.id && p.status === 'Pending'),
    );

    // the pending list: the same item, nothing secret
    const pending = await admin.get('/api/users/kyc/pending');
    expect(pending.status).toBe(200);
    const item = (pending.body.pendingUsers as Array<Record<string, unknown>>).find((p) => p._id === user.id);
    expect(item).toEqual(added.item);
    expect(JSON.stringify(pending.body)).not.toMatch(/password|token|secret|hash|documentId/i);

    // identity's user view follows the kyc events
    const pendingView = await waitFor(async () => {
      const u = await getUser(user);
      return u.kycStatus === 'Pending' ? u : null;
    });
    expect(pendingView.kyc).toEqual(added.item.kyc);

    // a second upload while Pending is refused
    const again = await upload(user, { front: PNG, back: PNG });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: MESSAGES.underReview });

    // the documents stream to their owner and to admins
    for (const cookie of [user.browser.cookieHeader(), admin.cookieHeader()]) {
      const doc = await fetchDocument(pendingView.kyc.frontDoc, cookie);
      expect(doc.status).toBe(200);
      expect(doc.body.equals(PNG)).toBe(true);
      expect(doc.headers.get('content-type')).toBe('image/png');
      expect(doc.headers.get('x-content-type-options')).toBe('nosniff');
      expect(doc.headers.get('cache-control')).toContain('no-store');
    }

    const approved = await admin.patch(`/api/users/kyc/approve/${user.id}`);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ message: 'KYC approved successfully!' });
    await waitFor(() =>
      adminSocket.got.find(
        ([e, p]) => e === 'queue/itemDecided' && p.id === user.id && p.status === 'Approved',
      ),
    );
    await waitFor(() => userSocket.got.find(([e, p]) => e === 'status/changed' && p.status === 'Approved'));
    await waitFor(async () => (await getUser(user)).kycStatus === 'Approved', 'getUser shows Approved');
    const after = await admin.get('/api/users/kyc/pending');
    expect((after.body.pendingUsers as Array<{ _id: string }>).some((p) => p._id === user.id)).toBe(false);

    // decided once
    const twice = await admin.patch(`/api/users/kyc/approve/${user.id}`);
    expect(twice.status).toBe(409);
    expect(twice.body.message).toMatch(/already been approved/);
    const late = await admin.patch(`/api/users/kyc/reject/${user.id}`);
    expect(late.status).toBe(409);
    // Approved: no new upload
    expect((await upload(user, { front: PNG, back: PNG })).status).toBe(409);

    // emails: the admin was told once about this user, the user once about the approval
    await waitForMail(t.url, user.email, (m) => m.subject === 'Your identity is verified');
    await waitForMail(
      t.url,
      ADMIN_EMAIL,
      (m) => m.subject === 'New KYC documents to review' && m.text.includes(user.email),
    );
    expect((await kycMailsTo(ADMIN_EMAIL, user.email)).map((m) => m.subject)).toEqual([
      'New KYC documents to review',
    ]);
    expect((await kycMailsTo(user.email)).map((m) => m.subject)).toEqual(['Your identity is verified']);
  });

  it('a rejection is emailed with its reason, and the user may upload again', async () => {
    const user = await verifiedUser(t.url);
    expect((await upload(user, { front: PNG, back: PNG })).status).toBe(200);
    const rejected = await admin.patch(`/api/users/kyc/reject/${user.id}`, { reason: 'The photo is blurry' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({ message: 'KYC rejected successfully!' });
    expect((await admin.patch(`/api/users/kyc/reject/${user.id}`)).status).toBe(409);
    await waitFor(async () => (await getUser(user)).kycStatus === 'Rejected', 'getUser shows Rejected');

    const mail = await waitForMail(
      t.url,
      user.email,
      (m) => m.subject === 'Your KYC documents were not accepted',
    );
    expect(mail.text).toContain('The photo is blurry');

    expect((await upload(user, { front: PNG, back: PNG })).status).toBe(200);
    await waitFor(async () => (await getUser(user)).kycStatus === 'Pending', 'Pending again');
    await waitFor(
      async () => (await kycMailsTo(ADMIN_EMAIL, user.email)).length === 2,
      'two submissions, two admin emails',
    );
    expect((await kycMailsTo(user.email)).map((m) => m.subject)).toEqual([
      'Your KYC documents were not accepted',
    ]);
  });
});

describe('KYC upload checks', () => {
  let user: Account;
  beforeAll(async () => {
    user = await verifiedUser(t.url);
  });

  it('refuses a .png that holds HTML, an image without or under the least dimensions, 10,485,761 bytes and a missing side; nothing is kept', async () => {
    const html = await upload(user, { front: HTML_AS_PNG, back: PNG, frontName: 'passport.png' });
    expect(html.status).toBe(400);
    expect(html.body).toEqual({ message: MESSAGES.invalidFormat });

    const threeByteJpeg = await upload(user, { front: Buffer.from([0xff, 0xd8, 0xff]), back: PNG });
    expect(threeByteJpeg.status).toBe(400);
    expect(threeByteJpeg.body).toEqual({
      message:
        'The image could not be read. Please upload a photo or scan of the document (JPEG, PNG or PDF).',
    });
    const tiny = await upload(user, { front: testPng(1, 1), back: PNG });
    expect(tiny.body).toEqual({
      message: 'The image is too small (1×1 pixels): each side must be at least 200 pixels.',
    });

    const big = Buffer.concat([PNG, Buffer.alloc(MAX_BYTES + 1 - PNG.length)]);
    expect(big.length).toBe(10_485_761);
    const tooLarge = await upload(user, { front: big, back: PNG });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body).toEqual({ message: MESSAGES.tooLarge });

    const exactly = Buffer.concat([PNG, Buffer.alloc(MAX_BYTES - PNG.length)]);
    const missing = await upload(user, { front: exactly });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: MESSAGES.bothSides });

    expect(await t.app.kycDocuments.list(user.id)).toEqual([]);
    expect((await getUser(user)).kycStatus).toBe('Not Submitted');
  });

  it('needs a verified email, a session and the CSRF header', async () => {
    const unverified = await registerUser(t.url);
    const res = await upload(unverified, { front: PNG, back: PNG });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: MESSAGES.verifyFirst });

    const anonymous = await new HttpSession(t.url).postForm(
      '/api/users/uploadKycDocuments',
      form({ front: PNG, back: PNG }),
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: MESSAGES.notLoggedIn });

    const noCsrf = await user.browser.postForm(
      '/api/users/uploadKycDocuments',
      form({ front: PNG, back: PNG }),
      { csrf: false },
    );
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toEqual({ message: 'Invalid CSRF token' });
  });

  it('ignores x-user-* and x-internal-token headers sent by the browser', async () => {
    const unverified = await registerUser(t.url);
    const forged = await upload(
      unverified,
      { front: PNG, back: PNG },
      {
        'x-user-verified': 'true',
        'x-user-id': user.id,
        'x-user-role': 'admin',
        'x-internal-token': 'forged-token-forged-token-forged',
      },
    );
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual({ message: MESSAGES.verifyFirst });
    expect(await t.app.kycDocuments.list(user.id)).toEqual([]);
    expect(await t.app.kycDocuments.list(unverified.id)).toEqual([]);
  });
});

describe('KYC upload: a refusal or a failure never leaves the connection half read', () => {
  const BOUNDARY = 'meridian-kyc-test';
  /** A multipart body as a browser sends it, with a file part `front` of `size` bytes (and `back`). */
  const multipart = (size: number): Buffer => {
    const part = (name: string, bytes: Buffer) =>
      Buffer.concat([
        Buffer.from(
          `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"; filename="${name}.png"\r\n` +
            'content-type: image/png\r\n\r\n',
        ),
        bytes,
        Buffer.from('\r\n'),
      ]);
    const big = Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]);
    return Buffer.concat([part('front', big), part('back', PNG), Buffer.from(`--${BOUNDARY}--\r\n`)]);
  };
  /** The upload (a 1 MB multipart unless `request` says otherwise), then getUser, on one keep-alive connection of `url`. */
  const uploadThenGetUser = (url: string, a: Account, request: Partial<RawRequest>) => {
    const cookie = a.browser.cookieHeader();
    return onOneConnection(url, [
      {
        method: 'POST',
        path: '/api/users/uploadKycDocuments',
        body: multipart(1_000_000),
        ...request,
        headers: {
          cookie,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'x-xsrf-token': decodeURIComponent(a.browser.cookie('XSRF-TOKEN') ?? ''),
          ...request.headers,
        },
      },
      { method: 'GET', path: '/api/users/getUser', headers: { cookie } },
    ]);
  };

  it('a case under review refuses a 1 MB upload before storing it (409), and the next request is answered on that connection', async () => {
    const user = await verifiedUser(t.url);
    expect((await upload(user, { front: PNG, back: PNG })).status).toBe(200);
    const { answers, sockets } = await uploadThenGetUser(t.url, user, {});
    expect(answers.map((a) => [a.status, a.message])).toEqual([
      [409, MESSAGES.underReview],
      [200, undefined],
    ]);
    expect(sockets).toBe(1);
  });

  it('a JSON body is refused unread (400), one announced over two documents too (413, Connection: close)', async () => {
    const user = await verifiedUser(t.url);
    const json = await uploadThenGetUser(t.url, user, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ front: 'x'.repeat(300_000) }),
    });
    expect(json.answers.map((a) => [a.status, a.message])).toEqual([
      [400, MESSAGES.bothSides],
      [200, undefined],
    ]);
    expect(json.sockets).toBe(1);
    const huge = await uploadThenGetUser(t.url, user, { announced: 30 * 1024 * 1024 });
    expect(huge.answers.map((a) => [a.status, a.message, a.headers.connection])).toEqual([
      [413, MESSAGES.tooLarge, 'close'],
      [200, undefined, 'keep-alive'],
    ]);
    expect(huge.sockets).toBe(2);
    expect((await getUser(user)).kycStatus).toBe('Not Submitted');
  });

  describe('when the kyc service drops the connection mid-upload', () => {
    let broken: TestComposition;
    let kyc: Server;
    let seen = 0;
    beforeAll(async () => {
      // reads the first bytes of the upload, then ends the connection without an answer
      kyc = createServer((req) => {
        seen++;
        req.once('data', () => req.socket.destroy());
      });
      const port = await listenOn(kyc, 0, '127.0.0.1');
      broken = await startTestComposition({ gateway: { kycHttpUrl: `http://127.0.0.1:${port}` } });
    });
    afterAll(async () => {
      await broken?.stop();
      await new Promise<void>((resolve) => kyc.close(() => resolve()));
    });

    it('the gateway answers 503 with Connection: close, and the next request is answered', async () => {
      const user = await verifiedUser(broken.url);
      const { answers, sockets } = await uploadThenGetUser(broken.url, user, {});
      expect(answers.map((a) => [a.status, a.message, a.headers.connection])).toEqual([
        [503, 'Service temporarily unavailable, please try again later.', 'close'],
        [200, undefined, 'keep-alive'],
      ]);
      expect(sockets).toBe(2);
    });

    it('an admin impersonating the user is refused by the gateway itself (403), before the kyc service sees a byte', async () => {
      const user = await verifiedUser(broken.url);
      const impersonator = await adminBrowser(broken.url);
      expect((await impersonator.post(`/api/users/impersonate/${user.id}`)).status).toBe(200);
      const before = seen;
      const res = await impersonator.postForm(
        '/api/users/uploadKycDocuments',
        form({ front: PNG, back: PNG }),
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'KYC documents cannot be uploaded while impersonating a user' });
      expect(seen).toBe(before);
    });
  });
});

describe('KYC documents and the admin calls: who may', () => {
  let owner: Account;
  let other: Account;
  beforeAll(async () => {
    owner = await verifiedUser(t.url);
    other = await registerUser(t.url);
    expect((await upload(owner, { front: PNG, back: PNG })).status).toBe(200);
  });

  it('another user gets 403, anonymous 401, a forged x-user-id header changes nothing', async () => {
    const path = `/api/users/kyc/document/${owner.id}/back`;
    const anon = await fetchDocument(path);
    expect(anon.status).toBe(401);
    expect(anon.json()).toEqual({ message: MESSAGES.notLoggedIn });

    const stranger = await fetchDocument(path, other.browser.cookieHeader());
    expect(stranger.status).toBe(403);
    expect(stranger.json()).toEqual({ message: MESSAGES.forbiddenDoc });

    const forged = await fetchDocument(path, other.browser.cookieHeader(), {
      'x-user-id': owner.id,
      'x-user-role': 'admin',
    });
    expect(forged.status).toBe(403);
    expect(forged.json()).toEqual({ message: MESSAGES.forbiddenDoc });
    const forgedAnon = await fetchDocument(path, undefined, {
      'x-user-id': owner.id,
      'x-user-role': 'admin',
    });
    expect(forgedAnon.status).toBe(401);

    const mine = await fetchDocument(path, owner.browser.cookieHeader());
    expect(mine.status).toBe(200);
    expect(mine.body.equals(PNG)).toBe(true);
    // never a page of ours: an attachment, sandboxed (the app's own policy does not replace it)
    expect(mine.headers.get('content-disposition')).toBe('attachment; filename="kyc-back.png"');
    expect(mine.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(
      (await fetchDocument(`/api/users/kyc/document/${owner.id}/side`, owner.browser.cookieHeader())).status,
    ).toBe(404);
  });

  it('a subscriber calling kyc/pending, approve or reject gets 403; anonymous 401', async () => {
    const list = await other.browser.get('/api/users/kyc/pending');
    expect(list.status).toBe(403);
    expect(list.body).toEqual({ message: MESSAGES.notAdmin });
    expect((await other.browser.patch(`/api/users/kyc/approve/${owner.id}`)).status).toBe(403);
    expect((await other.browser.patch(`/api/users/kyc/reject/${owner.id}`)).status).toBe(403);
    expect((await new HttpSession(t.url).get('/api/users/kyc/pending')).status).toBe(401);
    expect((await admin.patch('/api/users/kyc/approve/no-such-user')).status).toBe(404);
  });

  it('deleting the user erases the documents', async () => {
    const doomed = await verifiedUser(t.url);
    expect((await upload(doomed, { front: PNG, back: PNG })).status).toBe(200);
    expect(await t.app.kycDocuments.list(doomed.id)).toHaveLength(2);
    const del = await admin.delete(`/api/users/${doomed.id}`);
    expect(del.status).toBe(200);
    await waitFor(async () => (await t.app.kycDocuments.list(doomed.id)).length === 0, 'documents erased');
    const gone = await fetchDocument(`/api/users/kyc/document/${doomed.id}/front`, admin.cookieHeader());
    expect(gone.status).toBe(404);
    const pending = await admin.get('/api/users/kyc/pending');
    expect((pending.body.pendingUsers as Array<{ _id: string }>).some((p) => p._id === doomed.id)).toBe(
      false,
    );
  });
});

describe('KYC upload rate limit', () => {
  let limited: TestComposition;
  beforeAll(async () => {
    limited = await startTestComposition({
      gateway: { rateLimits: { kycUpload: { max: 2, windowMs: 60_000 } } },
    });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('answers 429 with Retry-After after the budget, before the kyc service sees the body', async () => {
    const user = await registerUser(limited.url);
    for (let i = 0; i < 2; i++) expect((await upload(user, { front: PNG })).status).toBe(400);
    const res = await upload(user, { front: PNG, back: PNG });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ message: 'Too many requests, please try again later.' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('socket catch-up', () => {
  it('a socket that reconnects with a lastPosition is told to fetch again (live/resync)', async () => {
    const user = await registerUser(t.url);
    const withPosition = connect(t.url, {
      path: '/socket.io',
      transports: ['websocket'],
      extraHeaders: { cookie: user.browser.cookieHeader() },
      auth: { lastPosition: 'not-a-position-of-this-gateway' },
      reconnection: false,
    });
    sockets.push(withPosition);
    await new Promise((resolve) => withPosition.once('live/resync', resolve));

    const fresh = await openSocket(user.browser.cookieHeader());
    // the first connection (no position) gets no resync: a push sent after 'ready' arrives, a resync never did
    const probe = { kind: 'probe' };
    t.app.gateway.pushToUser(user.id, 'status/changed', probe);
    await waitFor(() => fresh.got.some(([e]) => e === 'status/changed'));
    expect(fresh.got.map(([e]) => e)).not.toContain('live/resync');
  });
});
