/**
 * Claim locks on the admin queues (gateway/src/live/claims.ts).
 * - the rules, on the memory store and on Redis (a db index of its own), with an injected clock;
 * - through HTTP and sockets: a second admin is refused (409) and sees the claim live, takes over (recorded),
 *   the first admin's decision is refused, the holder's decision releases the claim, a claim goes with the
 *   admin's last socket;
 * - two gateway instances on one Redis share the claims and their pushes.
 */
import { isSealed } from '@meridian/platform/personalData';
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { KeyValueStore } from '@meridian/platform/ports/keyValue';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { createRedisKeyValueStore } from '@meridian/platform/adapters/keyValue.redis';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { silentLogger, type GatewayLogger } from './logger.js';
import type { RunningGateway } from './server.js';
import { HttpError } from './http/errors.js';
import { CLAIM_MESSAGES, CLAIM_TTL_MS, createClaims, type ClaimChange } from './live/claims.js';
import { LIVE_EVENTS } from './live/pushContract.js';
import { claimItem, releaseItem, takeOverItem } from './testing/claims.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  signIn,
  startGatewayInstance,
  startTestComposition,
  userWithRole,
  type TestComposition,
} from './testing/composition.js';
import { HttpSession } from './testing/httpSession.js';
import {
  FAST_PLANS,
  openSocket,
  requestDeposit,
  verifiedUser,
  waitFor,
  waitForBalances,
  type Push,
  type RecordingSocket,
  decidePayment,
} from './testing/money.js';

/** A Redis database of these specs' own: the socket.io adapter's channel is not shared with other specs. */
const REDIS_URL = 'redis://127.0.0.1:6379/11';

const alice = { id: 'admin-a', name: 'Alice' };
const bob = { id: 'admin-b', name: 'Bob' };

function recordingLogger(lines: Array<Record<string, unknown>>): GatewayLogger {
  return {
    ...silentLogger,
    info: (obj: unknown) => void lines.push(obj as Record<string, unknown>),
  } as GatewayLogger;
}

/**
 * A TCP relay to a gRPC server (`host:port`) that can hold what its clients send: a call made while held stays
 * in flight, unanswered, until `release()` passes it on.
 */
async function heldRelay(target: string) {
  const port = Number(target.slice(target.lastIndexOf(':') + 1));
  let holding = false;
  const pending: Array<{ upstream: Socket; chunk: Buffer }> = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy()).on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (holding) pending.push({ upstream, chunk });
      else upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const address = server.address();
  return {
    address: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    hold(): void {
      holding = true;
    },
    release(): void {
      holding = false;
      for (const { upstream, chunk } of pending.splice(0)) upstream.write(chunk);
    },
    close: () =>
      new Promise<void>((res) => {
        for (const s of sockets) s.destroy();
        server.close(() => res());
      }),
  };
}

/** The claim a live claim change carries (null: released). */
type PushedClaim = { adminName?: string; history?: Array<{ byDecision?: boolean }> } | null;
/** A live claim change of item `id` whose claim is as `is` says. */
const claimChange = (id: string, is: (claim: PushedClaim) => boolean) => (p: Push) =>
  p.event === LIVE_EVENTS.claimChanged && p.payload.id === id && is(p.payload.claim as PushedClaim);

const refusal = async (p: Promise<unknown>): Promise<HttpError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

describe.each([
  ['memory', async () => createMemoryKeyValueStore({ prefix: `claims:${randomUUID()}:` })],
  ['redis', async () => createRedisKeyValueStore({ url: REDIS_URL, prefix: `test:claims:${randomUUID()}:` })],
] as Array<[string, () => Promise<KeyValueStore>]>)('claim rules (%s store)', (_name, makeKv) => {
  let kv: KeyValueStore;
  let clock = Date.parse('2026-01-01T10:00:00Z');
  const logs: Array<Record<string, unknown>> = [];
  const changes: ClaimChange[] = [];
  const make = () => {
    const claims = createClaims({ kv, logger: recordingLogger(logs), now: () => clock });
    claims.onChange((c) => changes.push(c));
    return claims;
  };
  beforeAll(async () => {
    kv = await makeKv();
  });
  afterAll(async () => {
    await kv.close();
  });

  it('one admin claims; another is refused; the holder renews; release lets the other claim', async () => {
    const claims = make();
    const id = randomUUID();
    const mine = await claims.claim('deposit', id, alice);
    expect(mine).toMatchObject({
      kind: 'deposit',
      id,
      adminId: alice.id,
      adminName: 'Alice',
      expiresInMs: CLAIM_TTL_MS,
    });
    expect(mine.history).toEqual([expect.objectContaining({ action: 'claimed', adminId: alice.id })]);
    const refused = await refusal(claims.claim('deposit', id, bob));
    expect([refused.status, refused.message]).toEqual([409, 'This item is being reviewed by Alice']);
    // renewing restarts the five minutes
    clock += 4 * 60_000;
    expect((await claims.claim('deposit', id, alice)).expiresInMs).toBe(CLAIM_TTL_MS);
    expect(await claims.release('deposit', id, bob.id)).toBe(false);
    expect(await claims.get('deposit', id)).not.toBeNull();
    expect(await claims.release('deposit', id, alice.id)).toBe(true);
    expect(await claims.get('deposit', id)).toBeNull();
    expect((await claims.claim('deposit', id, bob)).adminId).toBe(bob.id);
    expect((await claims.list()).filter((c) => c.id === id).map((c) => c.adminName)).toEqual(['Bob']);
    // every change was announced: claimed, renewed, released, claimed
    expect(changes.filter((c) => c.id === id).map((c) => c.claim?.adminName ?? null)).toEqual([
      'Alice',
      'Alice',
      null,
      'Bob',
    ]);
  });

  it('a claim expires five minutes after its last renewal (injected clock)', async () => {
    const claims = make();
    const id = randomUUID();
    await claims.claim('withdrawal', id, alice);
    clock += CLAIM_TTL_MS - 1;
    await expect(claims.claim('withdrawal', id, bob)).rejects.toMatchObject({ status: 409 });
    clock += 1;
    expect(await claims.get('withdrawal', id)).toBeNull();
    expect((await claims.list()).some((c) => c.id === id)).toBe(false);
    expect((await claims.claim('withdrawal', id, bob)).adminId).toBe(bob.id);
    // once Bob's claim expired, Alice's decision claims the item and decides it
    clock += CLAIM_TTL_MS;
    let during: Awaited<ReturnType<typeof claims.get>> = null;
    expect(
      await claims.decide('withdrawal', id, alice, async () => {
        during = await claims.get('withdrawal', id);
        return 'decided';
      }),
    ).toBe('decided');
    expect(during).toMatchObject({ adminId: alice.id });
    expect(await claims.get('withdrawal', id)).toBeNull();
  });

  it('takeover is explicit and recorded (history and a ClaimTakenOver log line)', async () => {
    const claims = make();
    const id = randomUUID();
    await claims.claim('kyc', id, alice);
    const taken = await claims.takeOver('kyc', id, bob);
    expect(taken.adminName).toBe('Bob');
    expect(taken.history.map((h) => [h.action, h.adminName, h.fromAdminName])).toEqual([
      ['claimed', 'Alice', undefined],
      ['takenOver', 'Bob', 'Alice'],
    ]);
    expect(logs).toContainEqual(
      expect.objectContaining({
        event: 'ClaimTakenOver',
        kind: 'kyc',
        id,
        adminId: bob.id,
        fromAdminId: alice.id,
      }),
    );
    // the former holder can no longer decide, renew or release it
    await expect(claims.decide('kyc', id, alice, async () => 'x')).rejects.toMatchObject({
      status: 409,
      message: 'This item is being reviewed by Bob',
    });
    await expect(claims.claim('kyc', id, alice)).rejects.toMatchObject({ status: 409 });
    expect(await claims.release('kyc', id, alice.id)).toBe(false);
  });

  it('a decision on an unheld item claims it in the same step, recorded in its history', async () => {
    const claims = make();
    const id = randomUUID();
    let held: Awaited<ReturnType<typeof claims.get>> = null;
    let bobsTry: HttpError | null = null;
    const decided = await claims.decide('investment', id, alice, async () => {
      held = await claims.get('investment', id);
      bobsTry = await refusal(claims.decide('investment', id, bob, async () => 'bob decided'));
      return 'alice decided';
    });
    expect(decided).toBe('alice decided');
    expect(held).toMatchObject({
      adminId: alice.id,
      history: [expect.objectContaining({ action: 'claimed', adminId: alice.id, byDecision: true })],
    });
    expect([bobsTry!.status, bobsTry!.message]).toEqual([409, 'This item is being reviewed by Alice']);
    expect(await claims.get('investment', id)).toBeNull();
    // announced: claimed by the decision, then released by it
    expect(changes.filter((c) => c.id === id).map((c) => c.claim?.adminName ?? null)).toEqual([
      'Alice',
      null,
    ]);
  });

  it('two admins deciding one unheld item at once: one decides, the other is refused naming the first', async () => {
    const claims = make();
    const id = randomUUID();
    let decisions = 0;
    const slow = () =>
      new Promise<string>((r) => {
        decisions += 1;
        setImmediate(() => r('decided'));
      });
    const [a, b] = await Promise.allSettled([
      claims.decide('deposit', id, alice, slow),
      claims.decide('deposit', id, bob, slow),
    ]);
    expect(decisions).toBe(1);
    const winner = a.status === 'fulfilled' ? 'Alice' : 'Bob';
    const lost = (a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason) as HttpError;
    expect([lost.status, lost.message]).toEqual([409, `This item is being reviewed by ${winner}`]);
  });

  it('a decision by the holder releases the claim on success, and blocks takeover while it runs', async () => {
    const claims = make();
    const id = randomUUID();
    await claims.claim('investment', id, alice);
    let finish: ((v: string) => void) | null = null;
    const running = claims.decide('investment', id, alice, () => new Promise<string>((r) => (finish = r)));
    await waitFor(async () => finish, { timeoutMs: 2_000, message: 'decision started' });
    const blocked = await refusal(claims.takeOver('investment', id, bob));
    expect([blocked.status, blocked.message]).toEqual([409, 'Alice is recording a decision on this item']);
    finish!('approved');
    expect(await running).toBe('approved');
    expect(await claims.get('investment', id)).toBeNull();
  });

  it('a refused decision releases the claim; one the service could not answer keeps it', async () => {
    const claims = make();
    const id = randomUUID();
    await claims.claim('deposit', id, alice);
    await expect(
      claims.decide('deposit', id, alice, async () => {
        throw new HttpError(503, 'down');
      }),
    ).rejects.toMatchObject({ status: 503 });
    expect((await claims.get('deposit', id))?.adminId).toBe(alice.id);
    expect((await claims.takeOver('deposit', id, bob)).adminId).toBe(bob.id);
    await expect(
      claims.decide('deposit', id, bob, async () => {
        throw new HttpError(403, 'own');
      }),
    ).rejects.toMatchObject({ status: 403 });
    expect(await claims.get('deposit', id)).toBeNull();
  });

  it('two admins racing for one item: exactly one gets it', async () => {
    const claims = make();
    const id = randomUUID();
    const admins = Array.from({ length: 8 }, (_, i) => ({ id: `admin-${i}`, name: `Admin ${i}` }));
    const results = await Promise.allSettled(admins.map((a) => claims.claim('deposit', id, a)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('releaseAllOf releases only that admin’s claims', async () => {
    const claims = make();
    const [a1, a2, b1] = [randomUUID(), randomUUID(), randomUUID()];
    await claims.claim('deposit', a1, alice);
    await claims.claim('kyc', a2, alice);
    await claims.claim('deposit', b1, bob);
    expect(await claims.releaseAllOf(alice.id)).toBe(2);
    expect(await claims.get('deposit', a1)).toBeNull();
    expect((await claims.get('deposit', b1))?.adminId).toBe(bob.id);
  });
});

describe('claims through the gateway: two admins, two gateway instances on one Redis', () => {
  const dir = tempDir('meridian-claims-');
  let t: TestComposition;
  let second: RunningGateway;
  let adminA: HttpSession;
  let adminB: HttpSession;
  let adminBName: string;
  /** Between instance 2 and the ledger: holds instance 2's ledger calls when a spec needs one in flight. */
  let ledgerRelay: Awaited<ReturnType<typeof heldRelay>>;
  const sockets: RecordingSocket[] = [];

  beforeAll(async () => {
    t = await startTestComposition({
      env: { PLANS_JSON: FAST_PLANS, REDIS_URL },
      dataDir: dir.path,
    });
    // instance 2: same bus file, same Redis db and namespace, its ledger calls through the relay
    ledgerRelay = await heldRelay(t.app.money.ledger.grpcAddress);
    second = await startGatewayInstance(t, dir.path, { ledgerGrpcUrl: ledgerRelay.address });
    adminA = new HttpSession(t.url);
    await signIn(adminA, ADMIN_EMAIL, ADMIN_PASSWORD);
    const b = await userWithRole(t.url, adminA, 'admin');
    adminBName = (await b.browser.get('/api/users/getUser')).body.name as string;
    adminB = new HttpSession(second.url);
    await signIn(adminB, b.email, b.password);
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await second?.stop();
    await ledgerRelay?.close();
    await t?.stop();
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${t?.redisPrefix ?? 'none'}*`);
      if (keys.length) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    dir.remove();
  });

  const socketOf = async (url: string, browser: HttpSession) => {
    const s = await openSocket(url, browser);
    sockets.push(s);
    return s;
  };

  it('A claims on instance 1; B on instance 2 sees it live, is refused, takes over; A is refused; B confirms and the claim goes', async () => {
    const investor = await verifiedUser(t.url);
    const depositId = await requestDeposit(investor.browser, 120);
    const aSocket = await socketOf(t.url, adminA);
    const bSocket = await socketOf(second.url, adminB);
    const aName = (await adminA.get('/api/users/getUser')).body.name as string;

    const claimed = await claimItem(adminA, 'deposit', depositId);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({
      message: 'Claimed',
      claim: { kind: 'deposit', id: depositId, adminName: aName },
    });
    // in Redis the record is sealed with A's key: A's name is never stored in clear
    const redis = new Redis(REDIS_URL);
    try {
      const raw = await redis.get(`${t.redisPrefix}gateway:claim:deposit:${depositId}`);
      expect(isSealed(raw)).toBe(true);
      expect(raw).not.toContain(aName);
    } finally {
      redis.disconnect();
    }
    await bSocket.waitFor(
      claimChange(depositId, (claim) => claim?.adminName === aName),
      'B sees A’s claim live on the other instance',
    );
    const list = await adminB.get('/api/admin/claims');
    expect(list.body.claims).toContainEqual(expect.objectContaining({ id: depositId, adminName: aName }));

    const refused = await claimItem(adminB, 'deposit', depositId);
    expect([refused.status, refused.body.message]).toEqual([409, `This item is being reviewed by ${aName}`]);
    const blind = await decidePayment(adminB, 'confirm', depositId);
    expect([blind.status, blind.body.message]).toEqual([409, `This item is being reviewed by ${aName}`]);

    const taken = await takeOverItem(adminB, 'deposit', depositId);
    expect(taken.status).toBe(200);
    expect(taken.body.claim.history.at(-1)).toMatchObject({
      action: 'takenOver',
      adminName: adminBName,
      fromAdminName: aName,
    });
    await aSocket.waitFor(
      claimChange(depositId, (claim) => claim?.adminName === adminBName),
      'A sees the takeover live',
    );
    const aDecides = await decidePayment(adminA, 'reject', depositId);
    expect([aDecides.status, aDecides.body.message]).toEqual([
      409,
      `This item is being reviewed by ${adminBName}`,
    ]);

    const confirmed = await decidePayment(adminB, 'confirm', depositId);
    expect(confirmed.status).toBe(200);
    await aSocket.waitFor(
      claimChange(depositId, (claim) => claim === null),
      'the decision released the claim',
    );
    expect(
      (await adminA.get('/api/admin/claims')).body.claims.some((c: { id: string }) => c.id === depositId),
    ).toBe(false);
  });

  it('nobody holding the claim: the spec decision claims and decides it; release answers released', async () => {
    const investor = await verifiedUser(t.url);
    const decidedId = await requestDeposit(investor.browser, 55);
    const aSocket = await socketOf(t.url, adminA);
    const decided = await decidePayment(adminB, 'confirm', decidedId);
    expect(decided.status).toBe(200);
    // announced on the other gateway: claimed by B's decision, then released by it
    await aSocket.waitFor(
      claimChange(decidedId, (claim) => claim?.history?.[0]?.byDecision === true),
      'the claim taken by the decision',
    );
    await aSocket.waitFor(
      claimChange(decidedId, (claim) => claim === null),
      'released by the decision',
    );
    const again = await adminA.patch('/api/payments/confirmPayment', { transactionId: decidedId });
    expect([again.status, again.body.message]).toEqual([409, 'This deposit has already been confirmed']);

    const depositId = await requestDeposit(investor.browser, 60);
    expect((await claimItem(adminA, 'deposit', depositId)).status).toBe(200);
    expect((await releaseItem(adminB, 'deposit', depositId)).body).toEqual({
      message: 'Released',
      released: false,
    });
    expect((await releaseItem(adminA, 'deposit', depositId)).body).toEqual({
      message: 'Released',
      released: true,
    });
    expect((await claimItem(adminB, 'deposit', depositId)).status).toBe(200);
    expect((await releaseItem(adminB, 'deposit', depositId)).body.released).toBe(true);
  });

  it('two admins racing for one item through the spec paths: B decides, A gets 409 naming B while it runs, then already confirmed', async () => {
    const investor = await verifiedUser(t.url);
    const depositId = await requestDeposit(investor.browser, 85);
    // B's decision (instance 2) stays in flight while the relay holds its ledger call
    ledgerRelay.hold();
    const bDecides = decidePayment(adminB, 'confirm', depositId, 'B was first');
    try {
      await waitFor(
        async () =>
          (await adminA.get('/api/admin/claims')).body.claims.some(
            (c: { id: string; adminName: string }) => c.id === depositId && c.adminName === adminBName,
          ),
        { timeoutMs: 10_000, message: 'B holds the item by deciding it' },
      );
      const aConfirms = await decidePayment(adminA, 'confirm', depositId, 'A too');
      expect([aConfirms.status, aConfirms.body.message]).toEqual([
        409,
        `This item is being reviewed by ${adminBName}`,
      ]);
      const aRejects = await decidePayment(adminA, 'reject', depositId);
      expect([aRejects.status, aRejects.body.message]).toEqual([
        409,
        `This item is being reviewed by ${adminBName}`,
      ]);
    } finally {
      ledgerRelay.release();
    }
    const decided = await bDecides;
    expect(decided.status).toBe(200);
    expect(decided.body.transaction).toMatchObject({ status: 'Confirmed', notes: 'B was first' });
    const late = await adminA.patch('/api/payments/confirmPayment', { transactionId: depositId });
    expect([late.status, late.body.message]).toEqual([409, 'This deposit has already been confirmed']);
    await waitForBalances(investor.browser, { balance: 85 });
  });

  it('validates kind and id; a subscriber and an anonymous caller are refused', async () => {
    expect((await adminA.post('/api/admin/claims', { kind: 'loan', id: 'x' })).body.message).toBe(
      CLAIM_MESSAGES.kind,
    );
    expect((await adminA.post('/api/admin/claims', { kind: 'deposit', id: 'a/b' })).body.message).toBe(
      CLAIM_MESSAGES.invalidId,
    );
    expect((await adminA.post('/api/admin/claims', { kind: 'deposit', id: { $gt: '' } })).status).toBe(400);
    const user = await verifiedUser(t.url);
    expect((await user.browser.post('/api/admin/claims', { kind: 'deposit', id: 'x' })).status).toBe(403);
    expect((await user.browser.get('/api/admin/claims')).status).toBe(403);
    expect((await new HttpSession(t.url).get('/api/admin/claims')).status).toBe(401);
  });

  it('an admin’s claims go when their last socket disconnects', async () => {
    const investor = await verifiedUser(t.url);
    const depositId = await requestDeposit(investor.browser, 70);
    for (const s of sockets) s.close(); // B's socket of the first case too: this is B's only one
    const watcher = await socketOf(t.url, adminA);
    const bSocket = await openSocket(second.url, adminB);
    expect((await claimItem(adminB, 'deposit', depositId)).status).toBe(200);
    bSocket.close();
    await watcher.waitFor(
      claimChange(depositId, (claim) => claim === null),
      'released with the socket',
    );
    expect((await claimItem(adminA, 'deposit', depositId)).status).toBe(200);
  });

  it('an instance gone after being counted does not keep a disconnected admin’s claims', async () => {
    const investor = await verifiedUser(t.url);
    const depositId = await requestDeposit(investor.browser, 75);
    const watcher = await socketOf(t.url, adminA);
    const bSocket = await openSocket(second.url, adminB);
    expect((await claimItem(adminB, 'deposit', depositId)).status).toBe(200);
    // a third instance on the channel: counted by the adapter, gone at the first question it hears
    const requests = `${t.redisPrefix}socket.io-request#/#`;
    const doomed = new Redis(REDIS_URL);
    try {
      await doomed.subscribe(requests);
      const asked = new Promise<void>((resolve) => doomed.once('message', () => resolve()));
      bSocket.close();
      await asked;
      await doomed.unsubscribe(requests);
      // the first question times out (5 s) waiting on it; the second is answered by the two left
      await watcher.waitFor(
        claimChange(depositId, (claim) => claim === null),
        'released after the question was asked again',
      );
    } finally {
      doomed.disconnect();
    }
  });
});
