/**
 * Admin decision → investor socket event latency, on the standalone target:
 *   investor (registered, email verified, socket.io connection with the session cookie) POSTs
 *   api/payments/create {amount}; the admin (signed in through the new-browser code flow) PATCHes
 *   api/payments/confirmPayment; the clock runs from just before the PATCH is sent until the investor's
 *   socket receives 'balances/changed' showing the credited balance.
 * Baseline in the same run: a bare socket.io server where POST /emit?to=<socket> emits to that socket
 * (the fastest "HTTP request → socket push" this machine can do), timed the same way.
 * One decision at a time (latency, not throughput); bounded by `seconds` and `maxCount`.
 */
import { io as connect, type Socket } from 'socket.io-client';
import { latencyFigure as figure, nowMs as now, round, type LatencyFigure } from './load.js';
import { brief, registerInvestor, signIn, type BrowserSession } from './http.js';

export type { LatencyFigure };

export type SocketBenchResult =
  | { skipped: string }
  | {
      baseline: LatencyFigure;
      decisionToPush: LatencyFigure;
      /** the admin's PATCH round trip alone */
      decisionHttp: LatencyFigure;
      /** decision → push p50 ÷ baseline p50 */
      p50VsBaseline: number;
    };

const PUSH_TIMEOUT_MS = 10_000;

/** A socket.io client on `url` (with the session cookie: resolves on the gateway's 'ready'). */
export function openSocket(url: string, cookie?: string): Promise<Socket> {
  const socket = connect(url, {
    path: '/socket.io',
    transports: ['websocket'],
    extraHeaders: cookie ? { cookie } : {},
    reconnection: false,
    timeout: 10_000,
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.disconnect();
      reject(new Error('socket did not connect within 10 s'));
    }, 10_000);
    socket.once(cookie ? 'ready' : 'connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('connect_error', (err) => {
      clearTimeout(timer);
      socket.disconnect();
      reject(new Error(`socket connect_error: ${err.message}`));
    });
  });
}

/** Waits for the next `event` whose payload satisfies `match`; the time of its arrival (ms). */
function nextEvent(
  socket: Socket,
  event: string,
  match: (p: any) => boolean,
): { arrived: Promise<number>; cancel(): void } {
  let cancel = () => {};
  const arrived = new Promise<number>((resolve, reject) => {
    const on = (p: unknown) => {
      if (!match(p)) return;
      const t = now();
      cancel();
      resolve(t);
    };
    const timer = setTimeout(() => {
      cancel();
      reject(new Error(`no '${event}' push within ${PUSH_TIMEOUT_MS / 1000} s`));
    }, PUSH_TIMEOUT_MS);
    cancel = () => {
      clearTimeout(timer);
      socket.off(event, on);
    };
    socket.on(event, on);
  });
  return { arrived, cancel };
}

export async function baselineLatency(
  baseUrl: string,
  seconds: number,
  maxCount: number,
): Promise<LatencyFigure> {
  const socket = await openSocket(baseUrl);
  try {
    const ms: number[] = [];
    const end = now() + seconds * 1000;
    for (let i = 0; i < maxCount && now() < end; i++) {
      const wait = nextEvent(socket, 'pong', () => true);
      const t0 = now();
      const res = await fetch(`${baseUrl}/emit?to=${encodeURIComponent(socket.id ?? '')}`, {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      ms.push((await wait.arrived) - t0);
    }
    return figure('baseline: bare socket.io POST → emit', ms);
  } finally {
    socket.disconnect();
  }
}

/**
 * The decision loop, shared by the standalone (here) and the cluster (cluster.ts): the investor (fresh,
 * verified, nothing on the balance yet; `socket` carries their session) asks for a $10 deposit, the admin
 * confirms it, and the clock runs from just before the admin's PATCH until the socket receives
 * 'balances/changed' showing the new balance. One decision at a time, bounded by `seconds` and `maxCount`.
 */
export async function measureDecisions(o: {
  investor: BrowserSession;
  admin: BrowserSession;
  socket: Socket;
  seconds: number;
  maxCount: number;
}): Promise<{ toPush: number[]; http: number[] } | { skipped: string }> {
  const amount = 10;
  let expected = 0;
  const toPush: number[] = [];
  const http: number[] = [];
  const end = now() + o.seconds * 1000;
  for (let i = 0; i < o.maxCount && now() < end; i++) {
    const created = await o.investor.post('/api/payments/create', { amount });
    if (created.status === 404)
      return { skipped: 'POST api/payments/create answered 404 (money routes not mounted)' };
    if (created.status !== 201 && created.status !== 200)
      return { skipped: `POST api/payments/create failed: ${brief(created)}` };
    const transactionId = String(created.body?.transactionId ?? '');
    if (!transactionId)
      return { skipped: `POST api/payments/create answered without transactionId: ${brief(created)}` };
    expected += amount;
    const target = expected;
    // the admin opens the deposit first, which claims it (gateway/src/live/claims.ts): not timed
    const claimed = await o.admin.post('/api/admin/claims', { kind: 'deposit', id: transactionId });
    if (claimed.status !== 200) return { skipped: `POST api/admin/claims failed: ${brief(claimed)}` };
    const wait = nextEvent(o.socket, 'balances/changed', (p) => Number(p?.balances?.balance) >= target);
    const t0 = now();
    const decided = await o.admin.patch('/api/payments/confirmPayment', {
      transactionId,
      status: 'Confirmed',
      notes: 'bench',
    });
    const t1 = now();
    if (decided.status !== 200) {
      wait.cancel();
      return { skipped: `PATCH api/payments/confirmPayment failed: ${brief(decided)}` };
    }
    let t2: number;
    try {
      t2 = await wait.arrived;
    } catch (err) {
      return {
        skipped: `${(err as Error).message} after the admin confirmed a deposit (live pushes not wired?)`,
      };
    }
    http.push(t1 - t0);
    toPush.push(t2 - t0);
  }
  return { toPush, http };
}

export async function benchSocket(o: {
  url: string;
  baselineUrl: string;
  admin: { email: string; password: string };
  seconds: number;
  maxCount: number;
}): Promise<SocketBenchResult> {
  // ---- can it run at all? (the money routes and pushes are recent; say why when they are missing)
  let investor: Awaited<ReturnType<typeof registerInvestor>>;
  let admin: Awaited<ReturnType<typeof signIn>>;
  let socket: Socket;
  try {
    investor = await registerInvestor(o.url, { verify: true });
    admin = await signIn(o.url, o.admin.email, o.admin.password);
    socket = await openSocket(o.url, investor.browser.cookieHeader());
  } catch (err) {
    return { skipped: `setup failed: ${(err as Error).message}` };
  }

  try {
    const baseline = await baselineLatency(o.baselineUrl, o.seconds, o.maxCount);
    const measured = await measureDecisions({
      investor: investor.browser,
      admin,
      socket,
      seconds: o.seconds,
      maxCount: o.maxCount,
    });
    if ('skipped' in measured) return measured;
    const decisionToPush = figure('admin confirm → investor balances push', measured.toPush);
    return {
      baseline,
      decisionToPush,
      decisionHttp: figure('admin PATCH confirmPayment (HTTP)', measured.http),
      p50VsBaseline: baseline.p50 > 0 ? round(decisionToPush.p50 / baseline.p50, 1) : NaN,
    };
  } catch (err) {
    return { skipped: `failed: ${(err as Error).message}` };
  } finally {
    socket.disconnect();
  }
}
