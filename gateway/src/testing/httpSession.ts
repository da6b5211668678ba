/**
 * A browser-like HTTP client for tests: plain fetch plus a cookie jar, and the SPA's CSRF habit
 * (the SPA's API client copies the XSRF-TOKEN cookie into the X-XSRF-TOKEN header on state-changing requests).
 * A queue decision is sent as a spec client sends it, without claiming the item first (a decision on an item
 * nobody holds claims it; testing/claims.ts has the claim calls for specs of the claim rules).
 */

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  setCookies: string[];
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body (sent as-is with content-type application/json). */
  rawBody?: string;
  /** A multipart body (fetch sets the content type with its boundary). */
  form?: FormData;
  headers?: Record<string, string>;
  /** Send X-XSRF-TOKEN from the jar (default true). */
  csrf?: boolean;
}

export interface HttpSessionOptions {
  /** Headers sent with every request of the session (a request's own win), e.g. X-Forwarded-For. */
  headers?: Record<string, string>;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class HttpSession {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    readonly options: HttpSessionOptions = {},
  ) {}

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const m = method.toUpperCase();
    if (UNSAFE.has(m) && options.csrf !== false && !this.cookies.has('XSRF-TOKEN')) {
      await this.request('GET', '/api/users/loginStatus');
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.options.headers,
      ...options.headers,
    };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    if (UNSAFE.has(m) && options.csrf !== false) {
      const token = this.cookies.get('XSRF-TOKEN');
      if (token) headers['x-xsrf-token'] = decodeURIComponent(token);
    }
    let body: string | FormData | undefined;
    if (options.form !== undefined) body = options.form;
    else if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (typeof body === 'string') headers['content-type'] ??= 'application/json';
    const res = await fetch(new URL(path, this.baseUrl), { method: m, headers, body, redirect: 'manual' });
    const setCookies = res.headers.getSetCookie();
    for (const sc of setCookies) this.store(sc);
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text.length > 0)
      parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers, setCookies };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  /** POST multipart/form-data. */
  postForm<T = any>(path: string, form: FormData, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, form });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  private store(setCookie: string): void {
    const [pair, ...attrs] = setCookie.split(';');
    const i = pair.indexOf('=');
    if (i < 0) return;
    const name = pair.slice(0, i).trim();
    const value = pair.slice(i + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v] = a.trim().split('=');
      if (k.toLowerCase() === 'max-age') return Number(v) <= 0;
      if (k.toLowerCase() === 'expires') return new Date(v).getTime() <= Date.now();
      return false;
    });
    if (expired || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

/** Attributes of one Set-Cookie header, lower-cased names ("httponly" -> true). */
export function cookieAttributes(
  setCookies: string[],
  name: string,
): Record<string, string | true> | undefined {
  const sc = setCookies.find((c) => c.startsWith(`${name}=`));
  if (!sc) return undefined;
  const out: Record<string, string | true> = {};
  for (const part of sc.split(';').slice(1)) {
    const [k, ...v] = part.trim().split('=');
    out[k.toLowerCase()] = v.length ? v.join('=') : true;
  }
  return out;
}

export interface MailJson {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  links: string[];
  sentAt: string;
}

/** GET /api/dev/mailbox?to= (newest first). */
export async function listMail(baseUrl: string, to: string): Promise<MailJson[]> {
  const res = await fetch(new URL(`/api/dev/mailbox?to=${encodeURIComponent(to)}`, baseUrl));
  if (!res.ok) throw new Error(`mailbox answered ${res.status}`);
  return (await res.json()) as MailJson[];
}

/** Polls GET /api/dev/mailbox?to= until a message matches (newest first). */
export async function waitForMail(
  baseUrl: string,
  to: string,
  match: (m: MailJson) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<MailJson> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const res = await fetch(new URL(`/api/dev/mailbox?to=${encodeURIComponent(to)}`, baseUrl));
    if (res.ok) {
      const list = (await res.json()) as MailJson[];
      last = list.map((m) => m.subject);
      const found = list.find(match);
      if (found) return found;
    } else last = res.status;
    if (Date.now() > deadline)
      throw new Error(`no matching mail for ${to} within ${timeoutMs} ms (seen: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls the dev mailbox until `to` has mail with `subject`; answers every such message (newest first). */
export async function mailsWith(
  baseUrl: string,
  to: string,
  subject: string,
  timeoutMs = 5_000,
): Promise<MailJson[]> {
  await waitForMail(baseUrl, to, (m) => m.subject === subject, timeoutMs);
  return (await listMail(baseUrl, to)).filter((m) => m.subject === subject);
}

/** The 6-digit login code in a mail's text. */
export function loginCodeOf(mail: MailJson): string {
  const m = mail.text.match(/\b(\d{6})\b/) ?? mail.html.match(/\b(\d{6})\b/);
  if (!m) throw new Error(`no 6-digit code in mail "${mail.subject}"`);
  return m[1];
}

/** The first link of a mail whose path contains `segment` (e.g. '/verify/'), and its last path segment (the token). */
export function linkWith(mail: MailJson, segment: string): { url: string; token: string } {
  const url = mail.links.find((l) => l.includes(segment));
  if (!url)
    throw new Error(`no link containing ${segment} in mail "${mail.subject}": ${mail.links.join(', ')}`);
  const token = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
  return { url, token };
}
