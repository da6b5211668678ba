import axios, { AxiosError, type AxiosInstance } from 'axios';

/**
 * The one HTTP client of the SPA. Sessions are httpOnly cookies; the gateway sets XSRF-TOKEN and
 * expects X-XSRF-TOKEN on state-changing requests (axios's default cookie/header names).
 */
export const api: AxiosInstance = axios.create({
  baseURL: '/api',
  withCredentials: true,
  withXSRFToken: true,
  xsrfCookieName: 'XSRF-TOKEN',
  xsrfHeaderName: 'X-XSRF-TOKEN',
  headers: { Accept: 'application/json' },
  timeout: 0,
  validateStatus: (status) => status >= 200 && status < 300,
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

api.interceptors.response.use(undefined, (error: unknown) => {
  if (error instanceof AxiosError && error.response?.status === 401) {
    const url = error.config?.url ?? '';
    if (!CREDENTIAL_CALLS.some((call) => url.startsWith(call) || url.startsWith(`/${call}`)))
      onSessionEnded?.();
  }
  return Promise.reject(error);
});
