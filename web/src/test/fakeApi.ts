import { AxiosError, AxiosHeaders, type AxiosAdapter, type InternalAxiosRequestConfig } from 'axios';
import { api } from '../app/apiClient';

export interface RecordedCall {
  method: string;
  url: string;
  body: unknown;
  headers: Record<string, unknown>;
}

type Reply = [status: number, data?: unknown];
type Handler = (call: RecordedCall) => Reply | Promise<Reply>;

/**
 * Stands in for the gateway at the HTTP-client boundary: routes are "METHOD path" relative to
 * /api (e.g. "POST users/login"); every request is recorded with its parsed JSON body.
 */
export function fakeApi(routes: Record<string, Handler | Reply> = {}) {
  const calls: RecordedCall[] = [];
  const table = new Map<string, Handler | Reply>(Object.entries(routes));
  const original = api.defaults.adapter;

  const adapter: AxiosAdapter = async (config: InternalAxiosRequestConfig) => {
    const method = (config.method ?? 'get').toUpperCase();
    const url = (config.url ?? '').replace(/^\//, '');
    const body =
      typeof config.data === 'string' && config.data ? JSON.parse(config.data) : (config.data ?? null);
    const call: RecordedCall = {
      method,
      url,
      body,
      headers: AxiosHeaders.from(config.headers as AxiosHeaders).toJSON(),
    };
    calls.push(call);
    const route = table.get(`${method} ${url}`);
    const [status, data] =
      route === undefined
        ? [404, { message: `No fake route for ${method} ${url}` }]
        : typeof route === 'function'
          ? await route(call)
          : route;
    const response = { data, status, statusText: String(status), headers: {}, config, request: {} };
    if (status >= 200 && status < 300) return response;
    throw new AxiosError(
      (data as { message?: string } | undefined)?.message ?? `Request failed with status code ${status}`,
      'ERR_BAD_RESPONSE',
      config,
      {},
      response,
    );
  };
  api.defaults.adapter = adapter;

  return {
    calls,
    on(route: string, reply: Handler | Reply) {
      table.set(route, reply);
    },
    callsTo(route: string) {
      return calls.filter((c) => `${c.method} ${c.url}` === route);
    },
    restore() {
      api.defaults.adapter = original;
    },
  };
}
