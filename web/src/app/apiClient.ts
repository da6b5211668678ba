/**
 * The SPA's HTTP transport: a small XMLHttpRequest wrapper (api.get/post/put/patch/delete → { data, status },
 * a rejected ApiError with `response` for any non-2xx, ERR_TIMEOUT when a request outlasts its timeout).
 * XMLHttpRequest rather than fetch for the KYC upload's progress events. The money screens read and decide
 * through app/api.ts (RTK Query), whose base query calls this client; the other features call it directly.
 *
 * Sessions are httpOnly cookies; the gateway sets XSRF-TOKEN and expects X-XSRF-TOKEN on
 * state-changing requests (sent on every request).
 */

export interface ApiProgress {
  loaded: number;
  total?: number;
}

export interface ApiRequestConfig {
  headers?: Record<string, string>;
  onUploadProgress?: (event: ApiProgress) => void;
  /** Aborts the request (the KYC upload is cancelled when its screen is left). */
  signal?: AbortSignal;
  /** 'blob': a 2xx answer's `data` is the body as a Blob (a binary download: the statement PDF). */
  responseType?: 'blob';
  /** Milliseconds before the request is given up as ERR_TIMEOUT (default REQUEST_TIMEOUT_MS). */
  timeout?: number;
}

/** How long any request may take before it is given up (an upload or a download may set its own). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** What an adapter receives: `data` as the caller gave it (an object, FormData, or undefined). */
export interface ApiRequest extends ApiRequestConfig {
  method: string;
  url: string;
  data?: unknown;
  headers: Record<string, string>;
}

export interface ApiResponse<T = unknown> {
  data: T;
  status: number;
  config: ApiRequest;
  /** Response headers, names in lower case (e.g. the users list's `x-next-cursor`). */
  headers?: Record<string, string>;
}

/** XHR's raw header block as a record with lower-case names. */
function headersOf(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of raw.trim().split(/[\r\n]+/)) {
    const at = line.indexOf(':');
    if (at > 0) out[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return out;
}

export type ApiAdapter = (request: ApiRequest) => Promise<ApiResponse>;

/** A failed call: `response` is set when the server answered (any non-2xx status). */
export class ApiError extends Error {
  readonly response?: ApiResponse;
  readonly config: ApiRequest;
  readonly code: 'ERR_BAD_RESPONSE' | 'ERR_NETWORK' | 'ERR_ABORTED' | 'ERR_TIMEOUT';
  constructor(message: string, code: ApiError['code'], config: ApiRequest, response?: ApiResponse) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.config = config;
    this.response = response;
  }
}

const BASE_URL = '/api/';

function readCookie(name: string): string | undefined {
  const hit = document.cookie.split('; ').find((c) => c.startsWith(`${name}=`));
  return hit ? decodeURIComponent(hit.slice(name.length + 1)) : undefined;
}

/** A JSON answer parsed; anything else as text (axios's default `transitional.silentJSONParsing`). */
function parseBody(text: string): unknown {
  if (!text) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The browser adapter (tests swap `api.defaults.adapter` for a fake). */
export const xhrAdapter: ApiAdapter = (request) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method.toUpperCase(), BASE_URL + request.url.replace(/^\//, ''), true);
    xhr.withCredentials = true;
    const headers: Record<string, string> = { ...request.headers };
    let body: XMLHttpRequestBodyInit | null = null;
    if (request.data instanceof FormData) body = request.data;
    else if (request.data !== undefined) {
      body = JSON.stringify(request.data);
      headers['Content-Type'] = 'application/json';
    }
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    if (request.onUploadProgress) {
      const report = request.onUploadProgress;
      xhr.upload.onprogress = (e) =>
        report({ loaded: e.loaded, total: e.lengthComputable ? e.total : undefined });
    }
    if (request.responseType === 'blob') xhr.responseType = 'blob';
    xhr.onload = () => {
      const answer = (data: unknown) =>
        resolve({
          data,
          status: xhr.status,
          config: request,
          headers: headersOf(xhr.getAllResponseHeaders()),
        });
      if (xhr.responseType !== 'blob') answer(parseBody(xhr.responseText));
      else if (xhr.status >= 200 && xhr.status < 300) answer(xhr.response);
      // an error answer of a blob request is read as usual ({ message }) for errorMessage
      else
        (xhr.response as Blob).text().then(
          (text) => answer(parseBody(text)),
          () => answer(''),
        );
    };
    xhr.onerror = () => reject(new ApiError('Network Error', 'ERR_NETWORK', request));
    xhr.onabort = () => reject(new ApiError('Request aborted', 'ERR_ABORTED', request));
    if (request.signal?.aborted) {
      reject(new ApiError('Request aborted', 'ERR_ABORTED', request));
      return;
    }
    request.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });

/** Calls whose 401 means "wrong credentials or code", not "your session ended". */
const CREDENTIAL_CALLS = [
  'users/login',
  'users/register',
  'users/loginWithCode',
  'users/sendLoginCode',
  'users/google/callback',
  'users/changePassword',
  'users/forgotPassword',
  'users/resetPassword',
  'users/verifyUser',
  'users/loginStatus',
];

let onSessionEnded: (() => void) | undefined;

/** The store registers what to do when the server says the session is gone (401). */
export function setSessionEndedHandler(handler: (() => void) | undefined): void {
  onSessionEnded = handler;
}

/**
 * Runs the adapter under the request's timeout: the adapter's signal aborts when the time is up (or the
 * caller aborts), and the call rejects with ERR_TIMEOUT even if the adapter ignores the signal.
 */
function withTimeout(req: ApiRequest, adapter: ApiAdapter): Promise<ApiResponse> {
  const ms = req.timeout ?? REQUEST_TIMEOUT_MS;
  const controller = new AbortController();
  const caller = req.signal;
  const forward = () => controller.abort();
  if (caller?.aborted) controller.abort();
  else caller?.addEventListener('abort', forward, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new ApiError(`timeout of ${ms}ms exceeded`, 'ERR_TIMEOUT', req));
      controller.abort();
    }, ms);
  });
  return Promise.race([adapter({ ...req, signal: controller.signal }), timedOut]).finally(() => {
    clearTimeout(timer);
    caller?.removeEventListener('abort', forward);
  });
}

async function request<T>(
  method: string,
  url: string,
  data: unknown,
  config: ApiRequestConfig = {},
): Promise<ApiResponse<T>> {
  const xsrf = readCookie('XSRF-TOKEN');
  const req: ApiRequest = {
    ...config,
    method,
    url,
    data,
    headers: { Accept: 'application/json', ...(xsrf ? { 'X-XSRF-TOKEN': xsrf } : {}), ...config.headers },
  };
  const response = await withTimeout(req, api.defaults.adapter);
  if (response.status >= 200 && response.status < 300) return response as ApiResponse<T>;
  if (response.status === 401) {
    const path = url.replace(/^\//, '');
    if (!CREDENTIAL_CALLS.some((call) => path.startsWith(call))) onSessionEnded?.();
  }
  throw new ApiError(`Request failed with status code ${response.status}`, 'ERR_BAD_RESPONSE', req, response);
}

export const api = {
  defaults: { adapter: xhrAdapter },
  get: <T = unknown>(url: string, config?: ApiRequestConfig) => request<T>('get', url, undefined, config),
  delete: <T = unknown>(url: string, config?: ApiRequestConfig) =>
    request<T>('delete', url, undefined, config),
  post: <T = unknown>(url: string, data?: unknown, config?: ApiRequestConfig) =>
    request<T>('post', url, data, config),
  put: <T = unknown>(url: string, data?: unknown, config?: ApiRequestConfig) =>
    request<T>('put', url, data, config),
  patch: <T = unknown>(url: string, data?: unknown, config?: ApiRequestConfig) =>
    request<T>('patch', url, data, config),
};
