import type { CookieOptions, Response } from 'express';
import type { GatewayConfig } from '../config.js';

export const SESSION_COOKIE = 'meridian_session';
export const DEVICE_COOKIE = 'meridian_device';
export const CSRF_COOKIE = 'XSRF-TOKEN';
export const CSRF_HEADER = 'x-xsrf-token';

const DAY = 24 * 60 * 60_000;
export const SESSION_MAX_AGE_MS = DAY;
export const DEVICE_MAX_AGE_MS = 365 * DAY;

/** How the gateway's cookies are marked: Secure, and SameSite. */
export interface CookiePolicy {
  secure: boolean;
  sameSite: 'lax' | 'none';
}

/**
 * SameSite=Lax, except for Secure cookies when CORS_ORIGINS lists a separately hosted SPA: a browser
 * sends Lax cookies on no cross-site fetch, so that SPA would never be signed in. Then SameSite=None,
 * and state-changing requests stay guarded by the origin check and the CSRF token (middleware.ts).
 */
export function cookiePolicyOf(config: Pick<GatewayConfig, 'cookieSecure' | 'corsOrigins'>): CookiePolicy {
  const crossSite = config.cookieSecure && (config.corsOrigins?.length ?? 0) > 0;
  return { secure: config.cookieSecure, sameSite: crossSite ? 'none' : 'lax' };
}

const base = (p: CookiePolicy): CookieOptions => ({ sameSite: p.sameSite, secure: p.secure, path: '/' });

export function sessionCookieOptions(p: CookiePolicy): CookieOptions {
  return { ...base(p), httpOnly: true, maxAge: SESSION_MAX_AGE_MS };
}

export function setSessionCookie(res: Response, token: string, p: CookiePolicy): void {
  res.cookie(SESSION_COOKIE, token, sessionCookieOptions(p));
}

export function clearSessionCookie(res: Response, p: CookiePolicy): void {
  res.clearCookie(SESSION_COOKIE, { ...base(p), httpOnly: true });
}

export function setDeviceCookie(res: Response, token: string, p: CookiePolicy): void {
  res.cookie(DEVICE_COOKIE, token, { ...base(p), httpOnly: true, maxAge: DEVICE_MAX_AGE_MS });
}

/** Readable by the SPA's JavaScript (its API client copies it into X-XSRF-TOKEN). */
export function setCsrfCookie(res: Response, token: string, p: CookiePolicy): void {
  res.cookie(CSRF_COOKIE, token, { ...base(p), httpOnly: false });
}
