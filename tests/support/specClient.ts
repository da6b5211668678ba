/**
 * A client that knows only the API of spec §7 (docs/product-spec.md), as any third-party client written from
 * the spec would: plain fetch, a cookie jar, and the spec's HTTP client defaults (JSON accept header, the
 * forgery-protection cookie XSRF-TOKEN copied into the X-XSRF-TOKEN header, success on 200 to 299).
 *
 * Every call is checked against SPEC_CALLS, the §7 table written out as method + path pattern: a call the
 * spec does not name (a claims route, a development route, a query string) throws before anything is sent,
 * so a journey written with this client provably speaks the spec's API and nothing of ours.
 */

export interface SpecCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The whole path, anchored; a path parameter is one segment. */
  path: RegExp;
}

/** One path segment (a path parameter), never `.` or `..` (which would name another path). */
const P = '(?!\\.\\.?(?:/|$))[^/?#]+';
const call = (method: SpecCall['method'], path: string): SpecCall => ({
  method,
  path: new RegExp(`^/api/${path.replaceAll('{}', P)}$`),
});

/** The calls of spec §7, and nothing else. */
export const SPEC_CALLS: readonly SpecCall[] = [
  // Account (base api/users/)
  call('POST', 'users/register'),
  call('POST', 'users/login'),
  call('GET', 'users/logout'),
  call('GET', 'users/loginStatus'),
  call('GET', 'users/getUser'),
  call('PATCH', 'users/updateUser'),
  call('POST', 'users/sendVerificationEmail'),
  call('PATCH', 'users/verifyUser/{}'),
  call('PATCH', 'users/changePassword'),
  call('PATCH', 'users/resetPassword/{}'),
  call('POST', 'users/forgotPassword'),
  call('GET', 'users/getUsers'),
  call('DELETE', 'users/{}'),
  call('POST', 'users/upgradeUser'),
  call('POST', 'users/sendLoginCode/{}'),
  call('POST', 'users/loginWithCode/{}'),
  call('POST', 'users/google/callback'),
  call('POST', 'users/impersonate/{}'),
  call('POST', 'users/exit-impersonation'),
  // Other
  call('GET', 'countries'),
  call('POST', 'users/sendAutomatedEmail'),
  call('GET', 'invest/deposit-maturity'),
  call('GET', 'invest/plans'),
  call('POST', 'invest/start-invest'),
  call('GET', 'invest/investment-history'),
  call('GET', 'invest/adminPendingInvestment'),
  call('PUT', 'invest/{}/approve'),
  call('PUT', 'invest/{}/reject'),
  call('GET', 'invest/getTransactionHistory'),
  call('GET', 'users/referrals'),
  call('POST', 'payments/create'),
  call('GET', 'payments/viewPaymentStatus/{}'),
  call('PATCH', 'payments/confirmPayment'),
  call('PATCH', 'payments/rejectPayment'),
  call('GET', 'payments/pending-deposit'),
  call('GET', 'withDraw/pending'),
  call('GET', 'withDraw/get-withdrawal/{}'),
  call('PUT', 'withDraw/approve/{}'),
  call('PUT', 'withDraw/reject/{}'),
  call('POST', 'withDraw/create'),
  call('PUT', 'users/updateDepositBalance/{}'),
  call('PUT', 'users/editDepositBalance/{}'),
  call('PUT', 'users/editinvestmentBalance/{}'),
  call('POST', 'users/uploadKycDocuments'),
  call('GET', 'users/kyc/pending'),
  call('PATCH', 'users/kyc/approve/{}'),
  call('PATCH', 'users/kyc/reject/{}'),
];

/** Whether spec §7 names this call. */
export function isSpecCall(method: string, path: string): boolean {
  const m = method.toUpperCase();
  return SPEC_CALLS.some((c) => c.method === m && c.path.test(path));
}

export class NotASpecCall extends Error {
  constructor(method: string, path: string) {
    super(`not a call of spec §7: ${method.toUpperCase()} ${path}`);
    this.name = 'NotASpecCall';
  }
}

export interface SpecResult<T = any> {
  status: number;
  /** Status 200 to 299 (the spec's success). */
  ok: boolean;
  body: T;
}

export type SpecFetch = (url: string, init: RequestInit) => Promise<Response>;

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const CSRF_COOKIE = 'XSRF-TOKEN';
const CSRF_HEADER = 'x-xsrf-token';

/** Person fields the spec's lists and items carry (spec §3). */
interface Person {
  _id?: string;
  name: string;
  email: string;
}

/**
 * One browser speaking spec §7: its cookies, and the user the last sign-in answered (a bearer token is sent on
 * the calls §7 marks "bearer" when that user carries one; the session cookie is sent on every call).
 */
export class SpecClient {
  readonly cookies: Map<string, string>;
  /** Every call made, in order ("METHOD path"). */
  readonly calls: string[];
  /** The user the last register / login / loginWithCode answered. */
  user: Record<string, any> | null = null;
  private readonly fetchImpl: SpecFetch;

  constructor(
    readonly baseUrl: string,
    options: { fetch?: SpecFetch; cookies?: Map<string, string>; calls?: string[] } = {},
  ) {
    this.fetchImpl = options.fetch ?? ((url, init) => fetch(url, init));
    this.cookies = options.cookies ?? new Map();
    this.calls = options.calls ?? [];
  }

  /** The same browser (its cookie jar, call log and stored user) talking to another host of the same API. */
  on(baseUrl: string): SpecClient {
    const other = new SpecClient(baseUrl, {
      fetch: this.fetchImpl,
      cookies: this.cookies,
      calls: this.calls,
    });
    other.user = this.user;
    return other;
  }

  /** Any call of SPEC_CALLS; anything else throws NotASpecCall before a byte is sent. */
  async request<T = any>(
    method: SpecCall['method'],
    path: string,
    options: { body?: unknown; form?: FormData; bearer?: boolean } = {},
  ): Promise<SpecResult<T>> {
    if (!isSpecCall(method, path)) throw new NotASpecCall(method, path);
    // the forgery-protection cookie is set by the server on any answer; a first state-changing call needs it
    if (UNSAFE.has(method) && !this.cookies.has(CSRF_COOKIE)) await this.loginStatus();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = this.cookies.get(CSRF_COOKIE);
    if (UNSAFE.has(method) && csrf) headers[CSRF_HEADER] = decodeURIComponent(csrf);
    if (options.bearer && typeof this.user?.token === 'string')
      headers.authorization = `Bearer ${this.user.token}`;
    let body: string | FormData | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    this.calls.push(`${method} ${path}`);
    const res = await this.fetchImpl(`${this.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
    for (const setCookie of res.headers.getSetCookie()) this.store(setCookie);
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('application/json') && text.length > 0;
    return {
      status: res.status,
      ok: res.status >= 200 && res.status <= 299,
      body: json ? JSON.parse(text) : text,
    };
  }

  private store(setCookie: string): void {
    const [pair = '', ...attrs] = setCookie.split(';');
    const i = pair.indexOf('=');
    if (i < 0) return;
    const name = pair.slice(0, i).trim();
    const value = pair.slice(i + 1).trim();
    const expired = attrs.some((a) => {
      const [k = '', v = ''] = a.trim().split('=');
      if (k.toLowerCase() === 'max-age') return Number(v) <= 0;
      if (k.toLowerCase() === 'expires') return new Date(v).getTime() <= Date.now();
      return false;
    });
    if (expired || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }

  private async signedIn<T>(res: Promise<SpecResult<T>>): Promise<SpecResult<T>> {
    const r = await res;
    this.user = r.ok ? (r.body as Record<string, any>) : null;
    return r;
  }

  // ------------------------------------------------------------------ Account (api/users/)
  register(b: {
    name: string;
    email: string;
    password: string;
    phone: string;
    referralCode: string;
    country: string;
  }) {
    return this.signedIn(this.request('POST', '/api/users/register', { body: b }));
  }
  login(email: string, password: string) {
    return this.signedIn(this.request('POST', '/api/users/login', { body: { email, password } }));
  }
  logout() {
    return this.request<{ message: string }>('GET', '/api/users/logout');
  }
  loginStatus() {
    return this.request<boolean>('GET', '/api/users/loginStatus');
  }
  getUser() {
    return this.request('GET', '/api/users/getUser');
  }
  verifyUser(verificationToken: string) {
    return this.request<{ message: string }>(
      'PATCH',
      `/api/users/verifyUser/${encodeURIComponent(verificationToken)}`,
    );
  }
  getUsers() {
    return this.request<Array<Record<string, any>>>('GET', '/api/users/getUsers');
  }
  sendLoginCode(email: string) {
    return this.request<{ message: string }>('POST', `/api/users/sendLoginCode/${encodeURIComponent(email)}`);
  }
  loginWithCode(email: string, loginCode: string) {
    return this.signedIn(
      this.request('POST', `/api/users/loginWithCode/${encodeURIComponent(email)}`, { body: { loginCode } }),
    );
  }
  impersonate(id: string) {
    return this.request<{ message: string }>('POST', `/api/users/impersonate/${encodeURIComponent(id)}`);
  }
  exitImpersonation() {
    return this.request<{ message: string }>('POST', '/api/users/exit-impersonation');
  }

  // ------------------------------------------------------------------ Other
  countries() {
    return this.request<Array<{ name: string; code: string }>>('GET', '/api/countries');
  }
  depositMaturity() {
    return this.request('GET', '/api/invest/deposit-maturity');
  }
  plans() {
    return this.request<Array<{ _id: string; name: string; minAmount: number; maxAmount: number }>>(
      'GET',
      '/api/invest/plans',
    );
  }
  startInvest(amount: string, planName: string) {
    return this.request<{ message: string }>('POST', '/api/invest/start-invest', {
      body: { token: this.user?.token, amount, planName },
    });
  }
  investmentHistory() {
    return this.request<{ investments: SpecInvestment[] }>('GET', '/api/invest/investment-history');
  }
  adminPendingInvestment() {
    return this.request<{ pendingInvestments: SpecInvestment[] }>(
      'GET',
      '/api/invest/adminPendingInvestment',
      {
        bearer: true,
      },
    );
  }
  approveInvestment(id: string) {
    return this.request('PUT', `/api/invest/${encodeURIComponent(id)}/approve`, {});
  }
  rejectInvestment(id: string) {
    return this.request('PUT', `/api/invest/${encodeURIComponent(id)}/reject`, {});
  }
  transactionHistory() {
    return this.request<{ history: Array<{ type: string; timestamp: string } & Record<string, any>> }>(
      'GET',
      '/api/invest/getTransactionHistory',
    );
  }
  referrals() {
    return this.request<
      { referrals: Array<{ _id: string; name: string; email: string; photo: string }> } | { message: string }
    >('GET', '/api/users/referrals');
  }
  createPayment(amount: string) {
    return this.request<{ message: string }>('POST', '/api/payments/create', {
      body: { token: this.user?.token, amount },
    });
  }
  viewPaymentStatus(transactionId: string) {
    return this.request<{ transaction: SpecTransaction }>(
      'GET',
      `/api/payments/viewPaymentStatus/${encodeURIComponent(transactionId)}`,
    );
  }
  confirmPayment(transactionId: string, notes: string) {
    return this.request('PATCH', '/api/payments/confirmPayment', {
      body: { transactionId, status: 'Confirmed', notes },
    });
  }
  rejectPayment(transactionId: string, notes: string) {
    return this.request('PATCH', '/api/payments/rejectPayment', {
      body: { transactionId, status: 'Rejected', notes },
    });
  }
  pendingDeposits() {
    return this.request<{ deposit: SpecTransaction[] }>('GET', '/api/payments/pending-deposit', {
      bearer: true,
    });
  }
  pendingWithdrawals() {
    return this.request<{ withdrawals: SpecWithdrawal[] }>('GET', '/api/withDraw/pending', { bearer: true });
  }
  getWithdrawal(id: string) {
    return this.request<Record<string, any>>(
      'GET',
      `/api/withDraw/get-withdrawal/${encodeURIComponent(id)}`,
      {
        bearer: true,
      },
    );
  }
  approveWithdrawal(id: string) {
    return this.request('PUT', `/api/withDraw/approve/${encodeURIComponent(id)}`, { bearer: true });
  }
  rejectWithdrawal(id: string) {
    return this.request('PUT', `/api/withDraw/reject/${encodeURIComponent(id)}`, { bearer: true });
  }
  createWithdrawal(amount: string, walletAddress: string) {
    return this.request<{ message: string }>('POST', '/api/withDraw/create', {
      body: { token: this.user?.token, amount, walletAddress },
    });
  }
  uploadKycDocuments(front: SpecFile, back: SpecFile) {
    const form = new FormData();
    form.append('front', new Blob([new Uint8Array(front.bytes)], { type: front.type }), front.name);
    form.append('back', new Blob([new Uint8Array(back.bytes)], { type: back.type }), back.name);
    return this.request<{ message: string }>('POST', '/api/users/uploadKycDocuments', { form, bearer: true });
  }
  pendingKyc() {
    return this.request<{ pendingUsers: Array<Person & { _id: string }> }>('GET', '/api/users/kyc/pending');
  }
  approveKyc(id: string) {
    return this.request<{ message: string }>('PATCH', `/api/users/kyc/approve/${encodeURIComponent(id)}`);
  }
  rejectKyc(id: string) {
    return this.request<{ message: string }>('PATCH', `/api/users/kyc/reject/${encodeURIComponent(id)}`);
  }
}

export interface SpecFile {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/** Investment (spec §3). */
export interface SpecInvestment {
  investmentId?: string;
  _id?: string;
  plan: string;
  status: string;
  amount: number;
  maturityAmount: number;
  startDate: string | null;
  endDate: string | null;
  user: Person & { balance?: number };
}

/** Transaction, a deposit (spec §3). */
export interface SpecTransaction {
  transactionId?: string;
  _id?: string;
  amount: number;
  status: string;
  notes: string;
  createdAt: string;
  user: Person;
}

/** Withdrawal as the lists carry it (spec §3). */
export interface SpecWithdrawal {
  _id: string;
  user: Person;
  amount: number;
  walletAddress: string;
  status: string;
  requestDate: string;
}
