/**
 * Support chat: message sent → the other side's socket has it (goal: p50 ≤ 15 ms, p99 ≤ 50 ms on the
 * standalone with 1,000 open conversations and 2,000 connected sockets), against a bare socket.io emit
 * measured in the same run (bench/baselineServer.ts, timed as bench/socket.ts times it).
 *
 * On a standalone target of its own (rate limits lifted for the registrations, METRICS_PORT for its
 * consumers' lag):
 *   - `conversations` registered investors, each opening their conversation with a first message
 *     (POST api/support/conversations/mine/messages);
 *   - `adminSockets` sockets of the bench's admin and one socket for each of the first `measured` investors
 *     are held here (the measuring sockets); the other investors' sessions carry the rest of the `sockets`
 *     in child processes (bench/liveClients.ts, as the live-scale bench holds its many);
 *   - messages at `rate` per second, open loop, alternating direction, round robin over the measured
 *     investors: an investor's message (the clock runs from just before its POST until each admin socket
 *     gets its 'support/message') and the admin's reply to that investor's conversation (POST
 *     api/support/conversations/{id}/messages, until the investor's socket gets it). Each message's text is
 *     unique, so an arrival is matched to its message;
 *   - the investors' sockets in the child processes must receive none of those messages (cross-talk).
 * 20 untimed messages warm the target up, and the timed phase starts once its consumers caught up with
 * the setup (meridian_consumer_lag_events 0).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { freePort } from '@meridian/platform/util/freePort';
import { sleep } from './children.js';
import { brief, registerInvestor, signIn, type BrowserSession } from './http.js';
import {
  ensureNofile,
  inBatches,
  knob,
  sessionCookie,
  connectedTotals,
  receivedByClients,
  startSocketClients,
  untilQuiet,
  type ClientProcess,
} from './liveScale.js';
import { latencyFigure, nowMs as now, round, type LatencyFigure } from './load.js';
import { liftedRateLimitsEnv } from './logins.js';
import { table } from './table.js';
import { baselineLatency, openSocket } from './socket.js';
import { startBaselines, startStandaloneTarget } from './standalone.js';

export type SupportBenchResult =
  | { skipped: string }
  | {
      conversations: number;
      sockets: { wanted: number; connected: number; failed: number; seconds: number; firstError?: string };
      adminSockets: number;
      measured: number;
      /** messages asked for per second, and the achieved rate */
      rate: number;
      achievedRate: number;
      baseline: LatencyFigure;
      /** investor POST → each admin socket's 'support/message' (one sample per admin socket) */
      toAdmins: LatencyFigure;
      /** admin reply POST → the investor's socket's 'support/message' */
      toInvestor: LatencyFigure;
      /** both POSTs' round trips */
      http: LatencyFigure;
      failures: number;
      firstFailure?: string;
      /** pushes the other investors' sockets got during the timed phase (must be 0) */
      crossTalk: number;
    };

interface Measured {
  browser: BrowserSession;
  socket: Socket;
  conversationId: string;
}

const PUSH_TIMEOUT_MS = 10_000;

/** BENCH_SUPPORT_CONVERSATIONS (1000), BENCH_SUPPORT_SOCKETS (2000), BENCH_SUPPORT_ADMIN_SOCKETS (3),
 * BENCH_SUPPORT_MEASURED (investors with a measuring socket here, 20), BENCH_SUPPORT_RATE (messages/s, 20),
 * BENCH_SUPPORT_MAX_MESSAGES (1000), BENCH_SUPPORT_PROCESSES (client processes, 2). */
export const supportSettings = () => ({
  conversations: knob('BENCH_SUPPORT_CONVERSATIONS', 1_000),
  sockets: knob('BENCH_SUPPORT_SOCKETS', 2_000),
  adminSockets: knob('BENCH_SUPPORT_ADMIN_SOCKETS', 3),
  measured: knob('BENCH_SUPPORT_MEASURED', 20),
  rate: knob('BENCH_SUPPORT_RATE', 20),
  maxMessages: knob('BENCH_SUPPORT_MAX_MESSAGES', 1_000),
  processes: knob('BENCH_SUPPORT_PROCESSES', 2),
});

/** Resolves, per text, when `socket` receives the 'support/message' carrying it. */
function arrivals(socket: Socket): Map<string, (t: number) => void> {
  const waiting = new Map<string, (t: number) => void>();
  socket.on('support/message', (p: { message?: { text?: string } }) => {
    const t = now();
    const text = p?.message?.text ?? '';
    const done = waiting.get(text);
    if (!done) return;
    waiting.delete(text);
    done(t);
  });
  return waiting;
}

function arrival(waiting: Map<string, (t: number) => void>, text: string): Promise<number> {
  return Promise.race([
    new Promise<number>((resolve) => waiting.set(text, resolve)),
    sleep(PUSH_TIMEOUT_MS).then(() => {
      waiting.delete(text);
      return NaN;
    }),
  ]);
}

export async function benchSupport(o: {
  seconds: number;
  conversations: number;
  sockets: number;
  adminSockets: number;
  measured: number;
  rate: number;
  maxMessages: number;
  processes: number;
  log: (line: string) => void;
}): Promise<SupportBenchResult> {
  const metricsPort = await freePort();
  const baselines = await startBaselines();
  const clients: ClientProcess[] = [];
  const sockets: Socket[] = [];
  const cookieDir = mkdtempSync(join(tmpdir(), 'meridian-bench-support-'));
  let target: Awaited<ReturnType<typeof startStandaloneTarget>> | undefined;
  try {
    target = await startStandaloneTarget({
      env: { ...liftedRateLimitsEnv(), METRICS_PORT: String(metricsPort) },
      logName: 'standalone-support',
    });
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const measuredCount = Math.min(o.measured, o.conversations);

    // ---- setup: the conversations, the admin's and the measured investors' sockets
    let admin: BrowserSession;
    const adminArrivals: Array<Map<string, (t: number) => void>> = [];
    const measured: Measured[] = [];
    const investorArrivals: Array<Map<string, (t: number) => void>> = [];
    const otherCookies: string[] = [];
    try {
      const t0 = now();
      admin = await signIn(target.url, target.admin.email, target.admin.password);
      for (let i = 0; i < o.adminSockets; i++) {
        const socket = await openSocket(target.url, admin.cookieHeader());
        sockets.push(socket);
        adminArrivals.push(arrivals(socket));
      }
      const url = target.url;
      const opened = await inBatches(o.conversations, 4, async (i) => {
        const { browser } = await registerInvestor(url, { verify: false });
        const res = await browser.post('/api/support/conversations/mine/messages', {
          text: `bench: conversation ${i} opens`,
        });
        const conversationId = String(res.body?.conversation?._id ?? '');
        if (res.status !== 201 || !conversationId)
          throw new Error(`POST api/support/conversations/mine/messages failed: ${brief(res)}`);
        return { browser, conversationId };
      });
      for (const [i, c] of opened.entries()) {
        if (i >= measuredCount) {
          otherCookies.push(sessionCookie(c.browser));
          continue;
        }
        const socket = await openSocket(url, c.browser.cookieHeader());
        sockets.push(socket);
        investorArrivals.push(arrivals(socket));
        measured.push({ ...c, socket });
      }
      o.log(
        `  set up in ${((now() - t0) / 1000).toFixed(1)} s: ${opened.length} open conversations, ` +
          `${o.adminSockets} admin sockets, ${measured.length} measuring investor sockets`,
      );
    } catch (err) {
      return { skipped: `setup failed: ${(err as Error).message}` };
    }

    // ---- the other sockets, over the other investors' sessions
    const many = Math.max(0, o.sockets - sockets.length);
    const tc = now();
    let connected = 0;
    let failed = 0;
    let firstError: string | undefined;
    if (many > 0 && otherCookies.length === 0)
      return { skipped: `no investors left for ${many} more sockets (raise BENCH_SUPPORT_CONVERSATIONS)` };
    if (many > 0) {
      ensureNofile(target.pid, o.sockets + 1_000);
      const cookieFile = join(cookieDir, 'cookies.json');
      writeFileSync(cookieFile, JSON.stringify(otherCookies), { mode: 0o600 });
      clients.push(...startSocketClients(target.url, cookieFile, many, o.processes));
      const done = await Promise.all(clients.map((c) => c.waitFor('connected', 300_000)));
      ({ connected, failed, firstError } = connectedTotals(done));
    }
    const connectSeconds = round((now() - tc) / 1000, 1);
    o.log(
      `  ${connected + sockets.length} sockets connected (${connected} by ${clients.length} client processes, ${failed} failed) in ${connectSeconds} s`,
    );

    // ---- the messages
    const failuresOf: string[] = [];
    const send = async (
      k: number,
      timed: boolean,
      out: { toAdmins: number[]; toInvestor: number[]; http: number[] },
    ) => {
      const m = measured[Math.floor(k / 2) % measured.length];
      const text = `bench ${k} ${timed ? 't' : 'w'} ${Math.random().toString(36).slice(2, 10)}`;
      const fromInvestor = k % 2 === 0;
      const waits = fromInvestor
        ? adminArrivals.map((w) => arrival(w, text))
        : [arrival(investorArrivals[measured.indexOf(m)], text)];
      const t0 = now();
      const res = await (
        fromInvestor
          ? m.browser.post('/api/support/conversations/mine/messages', { text })
          : admin.post(`/api/support/conversations/${encodeURIComponent(m.conversationId)}/messages`, {
              text,
            })
      ).catch((err: unknown) => ({ status: 0, body: (err as Error).message }));
      const t1 = now();
      if (res.status !== 201) {
        failuresOf.push(`POST ${fromInvestor ? 'mine' : 'reply'}: ${brief(res)}`);
        return;
      }
      const times = await Promise.all(waits);
      if (times.some((t) => Number.isNaN(t))) {
        failuresOf.push(`no 'support/message' within ${PUSH_TIMEOUT_MS / 1000} s`);
        return;
      }
      out.http.push(t1 - t0);
      for (const t of times) (fromInvestor ? out.toAdmins : out.toInvestor).push(t - t0);
    };
    const run = async (count: number, timed: boolean) => {
      const out = { toAdmins: [] as number[], toInvestor: [] as number[], http: [] as number[] };
      const start = now();
      const inFlight: Array<Promise<void>> = [];
      for (let k = 0; k < count; k++) {
        const wait = start + (k * 1000) / o.rate - now();
        if (wait > 1) await sleep(wait);
        inFlight.push(send(k, timed, out));
      }
      const seconds = (now() - start) / 1000;
      await Promise.all(inFlight);
      return { out, achievedRate: round(count / Math.max(seconds, 1e-3), 1) };
    };
    await run(20, false);
    failuresOf.length = 0;
    const settled = await untilQuiet(metricsUrl);
    o.log(`  20 messages to warm up; the target's consumers caught up in ${settled} s`);
    const baseline = await baselineLatency(
      `http://127.0.0.1:${baselines.bare}`,
      o.seconds,
      Math.min(o.maxMessages, 200),
    );
    const count = Math.min(o.maxMessages, Math.round(o.rate * o.seconds));
    const { out, achievedRate } = await run(count, true);
    const received = await receivedByClients(clients);
    return {
      conversations: o.conversations,
      sockets: {
        wanted: o.sockets,
        connected: connected + sockets.length,
        failed,
        seconds: connectSeconds,
        ...(firstError ? { firstError } : {}),
      },
      adminSockets: o.adminSockets,
      measured: measured.length,
      rate: o.rate,
      achievedRate,
      baseline,
      toAdmins: latencyFigure('investor message → admin sockets', out.toAdmins),
      toInvestor: latencyFigure("support reply → investor's socket", out.toInvestor),
      http: latencyFigure('POST message (HTTP)', out.http),
      failures: failuresOf.length,
      ...(failuresOf.length ? { firstFailure: failuresOf[0] } : {}),
      crossTalk: received.reduce((a, m) => a + Number(m.supportMessage ?? 0), 0),
    };
  } catch (err) {
    return { skipped: `failed: ${(err as Error).message}` };
  } finally {
    for (const s of sockets) s.disconnect();
    await Promise.all(clients.map((c) => c.child.stop(5_000)));
    await Promise.all([target?.stop(), baselines.stop()]);
    rmSync(cookieDir, { recursive: true, force: true });
  }
}

export function printSupport(r: SupportBenchResult): void {
  if ('skipped' in r) {
    console.log(`\nsupport chat: skipped: ${r.skipped}`);
    return;
  }
  console.log(
    `\nsupport chat: message sent → the other side's socket (ms; ${r.conversations} open conversations, ` +
      `${r.sockets.connected} sockets, ${r.rate} messages/s asked, ${r.achievedRate} sent, open loop)`,
  );
  const b = r.baseline;
  table(
    ['run', 'count', 'p50', 'p99', 'max', 'p50 ÷ baseline', 'p99 ÷ baseline'],
    [b, r.toAdmins, r.toInvestor, r.http].map((f) => [
      f.name,
      f.count,
      f.p50,
      f.p99,
      f.max,
      round(f.p50 / b.p50, 1),
      round(f.p99 / b.p99, 1),
    ]),
  );
  console.log(
    `  goal: p50 ≤ 15 ms, p99 ≤ 50 ms with 1,000 open conversations and 2,000 sockets; ${r.adminSockets} admin sockets, ${r.measured} measured investors`,
  );
  console.log(
    `  ${r.sockets.connected} of ${r.sockets.wanted} sockets connected in ${r.sockets.seconds} s (${r.sockets.failed} failed${r.sockets.firstError ? `: ${r.sockets.firstError}` : ''}); ` +
      `${r.failures} messages failed${r.firstFailure ? ` (first: ${r.firstFailure})` : ''}`,
  );
  console.log(`  the other investors' sockets received ${r.crossTalk} of these messages (must be 0)`);
}

export function supportHeadline(r: SupportBenchResult | undefined): Record<string, number> {
  if (!r || 'skipped' in r) return {};
  return {
    'support: investor → admin push p50 (ms)': r.toAdmins.p50,
    'support: investor → admin push p99 (ms)': r.toAdmins.p99,
    'support: reply → investor push p50 (ms)': r.toInvestor.p50,
    'support: reply → investor push p99 (ms)': r.toInvestor.p99,
    'support: reply → investor p50 ÷ bare emit p50': round(r.toInvestor.p50 / r.baseline.p50, 1),
  };
}
