import { afterEach, beforeEach, vi } from 'vitest';
import { api, type ApiAdapter, type ApiRequest } from '../app/apiClient';

export interface RecordedCall {
  method: string;
  url: string;
  body: unknown;
  headers: Record<string, unknown>;
}

export type Reply = [status: number, data?: unknown, headers?: Record<string, string>];
type Handler = (call: RecordedCall) => Reply | Promise<Reply>;

/**
 * Stands in for the gateway at the HTTP-client boundary: routes are "METHOD path" relative to
 * /api (e.g. "POST users/login"); every request is recorded with its parsed JSON body.
 */
export function fakeApi(routes: Record<string, Handler | Reply> = {}) {
  const calls: RecordedCall[] = [];
  const table = new Map<string, Handler | Reply>(Object.entries(routes));
  const original = api.defaults.adapter;

  const adapter: ApiAdapter = async (config: ApiRequest) => {
    const method = config.method.toUpperCase();
    const url = config.url.replace(/^\//, '');
    const body = config.data ?? null;
    const call: RecordedCall = { method, url, body, headers: { ...config.headers } };
    calls.push(call);
    // a route without a query string also answers the same path with one (e.g. a paged list)
    const route = table.get(`${method} ${url}`) ?? table.get(`${method} ${url.split('?')[0]}`);
    const [status, data, headers] =
      route === undefined
        ? [404, { message: `No fake route for ${method} ${url}` }]
        : typeof route === 'function'
          ? await route(call)
          : route;
    return { data, status, config, headers: headers ?? {} };
  };
  api.defaults.adapter = adapter;

  return {
    calls,
    on(route: string, reply: Handler | Reply) {
      table.set(route, reply);
    },
    callsTo(route: string) {
      // a route without a query string counts the calls to its path with any query too
      return calls.filter(
        (c) =>
          `${c.method} ${c.url}` === route ||
          (!route.includes('?') && `${c.method} ${c.url.split('?')[0]}` === route),
      );
    },
    restore() {
      api.defaults.adapter = original;
    },
  };
}

export type FakeApi = ReturnType<typeof fakeApi>;

/** A logged-in investor's dashboard with nothing on it yet: balances, investments and history all empty. */
export const EMPTY_DASHBOARD: Record<string, Reply> = {
  'GET users/loginStatus': [200, true],
  'GET invest/deposit-maturity': [200, {}],
  'GET invest/investment-history': [200, []],
  'GET invest/getTransactionHistory': [200, []],
};

/**
 * A fresh fakeApi for each test of the file, answering the login status; restored after each test, with real
 * timers back. The object returned stands for the current test's fakeApi.
 */
export function fakeApiEachTest(): FakeApi {
  let current: FakeApi | undefined;
  beforeEach(() => {
    current = fakeApi({ 'GET users/loginStatus': [200, true] });
  });
  afterEach(() => {
    current?.restore();
    vi.useRealTimers();
  });
  const now = () => {
    if (!current) throw new Error('fakeApiEachTest: used outside a test');
    return current;
  };
  return {
    get calls() {
      return now().calls;
    },
    on: (route, reply) => now().on(route, reply),
    callsTo: (route) => now().callsTo(route),
    restore: () => now().restore(),
  };
}
