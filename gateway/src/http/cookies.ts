import type { CookieOptions, Response } from 'express';

export const SESSION_COOKIE = 'meridian_session';
export const DEVICE_COOKIE = 'meridian_device';
export const CSRF_COOKIE = 'XSRF-TOKEN';
export const CSRF_HEADER = 'x-xsrf-token';

const DAY = 24 * 60 * 60_000;
export const SESSION_MAX_AGE_MS = DAY;
export const DEVICE_MAX_AGE_MS = 365 * DAY;

export function sessionCookieOptions(secure: boolean): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: SESSION_MAX_AGE_MS };
}

export function setSessionCookie(res: Response, token: string, secure: boolean): void {
  res.cookie(SESSION_COOKIE, token, sessionCookieOptions(secure));
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}

export function setDeviceCookie(res: Response, token: string, secure: boolean): void {
  res.cookie(DEVICE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: DEVICE_MAX_AGE_MS,
  });
}

/** Readable by the SPA's JavaScript (axios copies it into X-XSRF-TOKEN). */
export function setCsrfCookie(res: Response, token: string, secure: boolean): void {
  res.cookie(CSRF_COOKIE, token, { httpOnly: false, sameSite: 'lax', secure, path: '/' });
}
