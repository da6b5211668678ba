/**
 * SIGTERM under load on the standalone target (graceful shutdown drains
 * HTTP, gRPC and consumers within the grace period; a test sends SIGTERM mid-load and sees no failed
 * request). Started as `make start` starts it (tests/support/standalone.ts) on a fresh DATA_DIR:
 * 20 concurrent loops of authenticated requests — 10 on one keep-alive connection each, 10 on a new
 * connection per request — alternating GET api/users/getUser and POST api/payments/create (a deposit
 * request with its Idempotency-Key); a probe loop asks /readyz. Once the load runs, SIGTERM to the server
 * process, then:
 * - every request that got a response got a correct one (getUser: 200 and the caller's own user; a
 *   deposit: 201 and its id), never a 5xx nor a connection reset or a half response;
 * - requests after the listener closed fail only with ECONNREFUSED;
 * - /readyz answered 503 (draining) before the listener closed;
 * - the process exits 0 within the grace period (SHUTDOWN_GRACE_MS, 20 s);
 * - after a restart on the same DATA_DIR every deposit acknowledged (201) is there, with its amount.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { expect } from 'vitest';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { HttpSession } from '@meridian/gateway/testing/httpSession';
import { signIn, verifiedUser, type Account } from '@meridian/gateway/testing/composition';
import { describeTargetJourney } from '../support/apiJourney.js';
import { exitOf, killSkipReason, loadDrillTarget, serverPidOf } from '../support/killTarget.js';
import { stopTarget } from '../support/standalone.js';

const skipReason = killSkipReason;
if (skipReason) console.log(`[skip] SIGTERM under load on the standalone: ${skipReason}`);

const ADMIN = { email: 'sigterm-drill-admin@example.com', password: 'Sigterm-Drill-Admin-1!' };
const USERS = 5;
const LOOPS = 20;
const GRACE_MS = 20_000;

/** What one request ended with. */
interface Outcome {
  loop: number;
  what: 'getUser' | 'deposit' | 'readyz';
  /** Milliseconds since the epoch when it ended. */
  at: number;
  status?: number;
  body?: string;
  /** The socket error's code (ECONNREFUSED, ECONNRESET, ...) or message. */
  error?: string;
  /** The response said Connection: close. */
  closed?: boolean;
}

/** One HTTP request on `agent` (false: a new connection, closed after the response). */
function send(
  url: URL,
  options: { agent: http.Agent | false; method: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method,
        agent: options.agent,
        headers: {
          ...options.headers,
          ...(options.agent === false ? { connection: 'close' } : {}),
          ...(options.body ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject); // a reset mid-body
        res.on('aborted', () => reject(new Error('response aborted')));
        res.on('end', () => {
          if (!res.complete) reject(new Error('incomplete response'));
          else
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              closed: res.headers.connection === 'close',
            });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const errorCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String((err as Error).message);

const drill = loadDrillTarget('sigterm-drill', ADMIN, {
  // what a load balancer takes to stop sending new connections (production's default, 3 s, is
  // longer); the grace period is the default's
  SHUTDOWN_DELAY_MS: '1500',
});
const { start } = drill;

describeTargetJourney(
  drill,
  {
    title: 'SIGTERM under load on the standalone target',
    journey:
      '20 loops of getUser and deposit requests (keep-alive and new connections), SIGTERM: no failed request, only ECONNREFUSED after the listener closed, exit 0 within the grace period, every acknowledged deposit kept',
    timeout: 180_000,
    skipReason,
  },
  async (target) => {
    const url = target.url;

    // ---- users, each signed in, with the CSRF cookie
    const users: Account[] = await Promise.all(Array.from({ length: USERS }, () => verifiedUser(url)));
    const auth = await Promise.all(
      users.map(async (u) => {
        const me = await u.browser.get('/api/users/getUser');
        expect(me.status).toBe(200);
        expect(me.body._id).toBe(u.id);
        await u.browser.get('/api/users/loginStatus'); // the XSRF-TOKEN cookie
        const xsrf = u.browser.cookie('XSRF-TOKEN');
        expect(xsrf).toBeTruthy();
        return {
          cookie: u.browser.cookieHeader(),
          'x-xsrf-token': decodeURIComponent(xsrf!),
          accept: 'application/json',
        };
      }),
    );

    // ---- the load. The clients behave as a load balancer's do: a connection they hold stays in use until
    // the server closes it (a response with Connection: close); new connections stop going to this
    // process once its /readyz answers 503 (the probe loop is the balancer's health check). Once the
    // listener is closed (the probe is refused), every loop sends one more request: it must be refused.
    const outcomes: Outcome[] = [];
    const acked: Array<{ user: number; id: string; cents: number }> = [];
    let signalAt = 0;
    let unreadyAt = 0;
    let seq = 0;
    let listenerClosed!: () => void;
    const closedListener = new Promise<void>((resolve) => (listenerClosed = resolve));
    const agents: http.Agent[] = [];
    const request = async (n: number, agent: http.Agent | false, deposit: boolean) => {
      const user = n % USERS;
      const cents = 1_000 + (seq++ % 9_000);
      const o: Outcome = { loop: n, what: deposit ? 'deposit' : 'getUser', at: 0 };
      try {
        const res = deposit
          ? await send(new URL('/api/payments/create', url), {
              agent,
              method: 'POST',
              headers: {
                ...auth[user],
                'content-type': 'application/json',
                'idempotency-key': `sigterm-${randomUUID()}`,
              },
              body: JSON.stringify({ amount: (cents / 100).toFixed(2) }),
            })
          : await send(new URL('/api/users/getUser', url), { agent, method: 'GET', headers: auth[user] });
        o.status = res.status;
        o.body = res.body;
        o.closed = res.closed;
        if (deposit && res.status === 201) {
          const id = (JSON.parse(res.body) as { transactionId?: string }).transactionId;
          if (id) acked.push({ user, id, cents });
        }
      } catch (err) {
        o.error = errorCode(err);
      }
      o.at = Date.now();
      outcomes.push(o);
      return o;
    };
    const loop = async (n: number) => {
      const keepAlive = n % 2 === 0;
      const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false;
      if (agent) agents.push(agent);
      for (let i = 0; ; i++) {
        // a new connection (every request without keep-alive) goes elsewhere once this process is unready
        if (unreadyAt && !keepAlive) break;
        const o = await request(n, agent, i % 2 === 1);
        if (o.error) return; // a failure, recorded
        if (unreadyAt && o.closed) break; // the server closed our connection: elsewhere from now on
      }
      await closedListener;
      await request(n, agent, false); // after the listener closed: refused
    };
    const probe = async () => {
      for (;;) {
        const o: Outcome = { loop: -1, what: 'readyz', at: 0 };
        try {
          const res = await send(new URL('/readyz', url), { agent: false, method: 'GET', headers: {} });
          o.status = res.status;
          o.body = res.body;
          if (signalAt && res.status === 503) unreadyAt ||= Date.now();
        } catch (err) {
          o.error = errorCode(err);
        }
        o.at = Date.now();
        outcomes.push(o);
        if (o.error) break;
        await new Promise((r) => setTimeout(r, 10)); // the probe's period (not a wait on a condition)
      }
      listenerClosed();
    };
    const loops = [...Array.from({ length: LOOPS }, (_, n) => loop(n)), probe()];

    await waitFor(() => acked.length >= 40 && outcomes.length >= 150, {
      timeoutMs: 60_000,
      message: 'the load runs (40 deposits acknowledged)',
    });
    const pid = await serverPidOf(target);
    const exited = exitOf(target);
    signalAt = Date.now();
    process.kill(pid, 'SIGTERM');
    await Promise.all(loops);
    await exited;
    const exitMs = Date.now() - signalAt;
    for (const a of agents) a.destroy();

    // ---- what the clients saw
    if (process.env.SIGTERM_DRILL_DEBUG)
      console.log(
        JSON.stringify(
          outcomes
            .filter((o) => o.at >= signalAt - 50)
            .map((o) => [o.loop, o.what, o.at - signalAt, o.status ?? o.error]),
        ),
        target.output().slice(-3000),
      );
    const api = outcomes.filter((o) => o.what !== 'readyz');
    const answered = api.filter((o) => o.error === undefined);
    const wrong = answered.filter((o) => {
      const body = JSON.parse(o.body ?? 'null') as Record<string, unknown> | null;
      if (o.what === 'getUser') return o.status !== 200 || body?._id !== users[o.loop % USERS].id;
      return o.status !== 201 || typeof body?.transactionId !== 'string';
    });
    expect(wrong.map((o) => `${o.what} ${o.status} ${o.body?.slice(0, 200)}`)).toEqual([]);
    const failed = api.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED');
    expect(failed.map((o) => `${o.what} (loop ${o.loop}): ${o.error}`)).toEqual([]);
    // every loop ran until the listener closed: its last request was refused
    expect(api.filter((o) => o.error === 'ECONNREFUSED')).toHaveLength(LOOPS);
    const afterSignal = answered.filter((o) => o.at >= signalAt);
    const firstRefused = Math.min(...api.filter((o) => o.error).map((o) => o.at));
    // readiness flipped before the listener closed; a probe fails only once it has (refused, or reset when its
    // new connection was still in the listen backlog as the listener closed: the balancer routes nothing there
    // by then), never before
    const probes = outcomes.filter((o) => o.what === 'readyz');
    expect(
      probes.filter(
        (o) =>
          o.error &&
          o.error !== 'ECONNREFUSED' &&
          !(o.error === 'ECONNRESET' && unreadyAt > 0 && o.at >= unreadyAt),
      ),
    ).toEqual([]);
    expect(probes.some((o) => o.at >= signalAt && o.status === 503 && /draining/.test(o.body ?? ''))).toBe(
      true,
    );
    expect(probes.filter((o) => o.at < signalAt && o.status !== 200)).toEqual([]);
    expect(target.child.exitCode).toBe(0);
    expect(exitMs).toBeLessThan(GRACE_MS);
    console.log(
      `[sigterm drill] ${answered.length} answered (${answered.filter((o) => o.at < signalAt).length} before the signal, ` +
        `${afterSignal.length} after it), ${acked.length} deposits acknowledged, listener closed ${firstRefused - signalAt} ms ` +
        `after SIGTERM, exit 0 after ${exitMs} ms`,
    );

    // ---- after a restart: every acknowledged deposit is there
    const again = await start();
    for (const [i, u] of users.entries()) {
      const browser = new HttpSession(again.url);
      await signIn(browser, u.email, u.password);
      const mine = acked.filter((a) => a.user === i);
      const seen = await Promise.all(
        mine.map(async (a) => {
          const res = await browser.get(`/api/payments/viewPaymentStatus/${a.id}`);
          return [res.status, Math.round(Number(res.body?.transaction?.amount) * 100)];
        }),
      );
      expect(seen).toEqual(mine.map((a) => [200, a.cents]));
    }
    expect(await stopTarget(again)).toBe(0);
  },
);
