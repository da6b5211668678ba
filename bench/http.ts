/**
 * HTTP side of the bench: autocannon runs, and a browser-like session (cookie jar + the SPA's CSRF
 * habit: X-XSRF-TOKEN = the XSRF-TOKEN cookie on state-changing requests) to register an investor,
 * verify their email through the dev mailbox, and sign the admin in through the new-browser code flow.
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { sleep } from './children.js';

export interface HttpFigure {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run of `seconds`. */
async function autocannonSlice(
  url: string,
  o: { seconds: number; connections: number; headers?: Record<string, string> },
) {
  const r = await autocannon({
    url,
    connections: o.connections,
    duration: o.seconds,
    headers: o.headers ?? {},
  });
  return {
    total: r.requests.total,
    duration: r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/**
 * Every target for `seconds` in all, split into `rounds` slices run interleaved (A B C D, D C B A, …) so
 * load that drifts during the run weighs on the baselines and the gateway alike. req/s = requests over
 * the summed durations; p50 / p99 = the slices' percentiles weighted by their request counts (approximate).
 */
export async function measureHttpInterleaved(
  targets: ReadonlyArray<{ name: string; url: string; headers?: Record<string, string> }>,
  o: { seconds: number; connections: number; rounds: number },
): Promise<HttpFigure[]> {
  const rounds = Math.max(1, Math.floor(o.rounds));
  const slices = targets.map(() => [] as Array<Awaited<ReturnType<typeof autocannonSlice>>>);
  for (let r = 0; r < rounds; r++) {
    const order = targets.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order)
      slices[i].push(
        await autocannonSlice(targets[i].url, {
          ...o,
          seconds: o.seconds / rounds,
          headers: targets[i].headers,
        }),
      );
  }
  return targets.map((t, i) => {
    const s = slices[i];
    const total = s.reduce((a, x) => a + x.total, 0);
    const duration = s.reduce((a, x) => a + x.duration, 0);
    const weighted = (k: 'p50' | 'p99') =>
      total > 0 ? +(s.reduce((a, x) => a + x[k] * x.total, 0) / total).toFixed(1) : NaN;
    return {
      name: t.name,
      rps: duration > 0 ? Math.round(total / duration) : 0,
      p50: weighted('p50'),
      p99: weighted('p99'),
      non2xx: s.reduce((a, x) => a + x.non2xx, 0),
      errors: s.reduce((a, x) => a + x.errors, 0),
    };
  });
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface HttpResult {
  status: number;
  body: any;
}

export class BrowserSession {
  readonly jar = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<HttpResult> {
    if (UNSAFE.has(method) && !this.jar.has('XSRF-TOKEN'))
      await this.request('GET', '/api/users/loginStatus');
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (this.jar.size) headers.cookie = this.cookieHeader();
    if (UNSAFE.has(method)) headers['x-xsrf-token'] = decodeURIComponent(this.jar.get('XSRF-TOKEN') ?? '');
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      if (i < 0) continue;
      const value = pair.slice(i + 1).trim();
      if (value === '' || /max-age=0\b/i.test(c)) this.jar.delete(pair.slice(0, i).trim());
      else this.jar.set(pair.slice(0, i).trim(), value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, body: parsed };
  }
  get = (path: string) => this.request('GET', path);
  post = (path: string, body?: unknown) => this.request('POST', path, body);
  patch = (path: string, body?: unknown) => this.request('PATCH', path, body);
  put = (path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request('PUT', path, body, headers);
}

const brief = (r: HttpResult) => `${r.status} ${JSON.stringify(r.body)?.slice(0, 200)}`;

interface Mail {
  id: string;
  text: string;
  html: string;
  links: string[];
}

/** Polls GET /api/dev/mailbox?to= (newest first) until a mail matches; bounded by `timeoutMs`. */
export async function waitForMail(
  baseUrl: string,
  to: string,
  match: (m: Mail) => boolean,
  timeoutMs = 10_000,
): Promise<Mail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(new URL(`/api/dev/mailbox?to=${encodeURIComponent(to)}`, baseUrl), {
      signal: AbortSignal.timeout(5_000),
    });
    if (res.ok) {
      const found = ((await res.json()) as Mail[]).find(match);
      if (found) return found;
    } else if (res.status === 404)
      throw new Error('GET /api/dev/mailbox answered 404 (is NODE_ENV production?)');
    if (Date.now() > deadline) throw new Error(`no matching mail for ${to} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Registers a fresh investor in a fresh browser (which becomes trusted and holds a session). */
export async function registerInvestor(
  baseUrl: string,
  opts: { verify: boolean },
): Promise<{ browser: BrowserSession; email: string; id: string }> {
  const browser = new BrowserSession(baseUrl);
  const email = `bench.${Date.now().toString(36)}.${randomUUID().slice(0, 6)}@example.com`;
  const res = await browser.post('/api/users/register', {
    name: 'Bench Investor',
    email,
    password: 'Bench!Pass1',
    phone: '+15555550100',
    country: 'Germany',
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`register failed: ${brief(res)}`);
  if (opts.verify) {
    const mail = await waitForMail(baseUrl, email, (m) => m.links.some((l) => l.includes('/verify/')));
    const link = mail.links.find((l) => l.includes('/verify/')) as string;
    const token = decodeURIComponent(new URL(link).pathname.split('/').filter(Boolean).pop() ?? '');
    const v = await browser.patch(`/api/users/verifyUser/${encodeURIComponent(token)}`);
    if (v.status !== 200) throw new Error(`verifyUser failed: ${brief(v)}`);
  }
  return { browser, email, id: String(res.body?._id ?? '') };
}

/** Signs in from a fresh browser; a new browser gets 400 and passes the emailed 6-digit code step. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<BrowserSession> {
  const browser = new BrowserSession(baseUrl);
  const first = await browser.post('/api/users/login', { email, password });
  if (first.status === 200) return browser;
  if (first.status !== 400) throw new Error(`login failed: ${brief(first)}`);
  const before = await fetch(new URL(`/api/dev/mailbox?to=${encodeURIComponent(email)}`, baseUrl), {
    signal: AbortSignal.timeout(5_000),
  });
  const known = new Set(before.ok ? ((await before.json()) as Mail[]).map((m) => m.id) : []);
  const sent = await browser.post(`/api/users/sendLoginCode/${encodeURIComponent(email)}`);
  if (sent.status !== 200) throw new Error(`sendLoginCode failed: ${brief(sent)}`);
  const mail = await waitForMail(
    baseUrl,
    email,
    (m) => !known.has(m.id) && /\b\d{6}\b/.test(m.text || m.html),
  );
  const code = ((mail.text || mail.html).match(/\b(\d{6})\b/) as RegExpMatchArray)[1];
  const res = await browser.post(`/api/users/loginWithCode/${encodeURIComponent(email)}`, {
    loginCode: code,
  });
  if (res.status !== 200) throw new Error(`loginWithCode failed: ${brief(res)}`);
  return browser;
}

export { brief };
