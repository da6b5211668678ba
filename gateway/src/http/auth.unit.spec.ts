/**
 * The Caller the gateway sends to every service carries the client address sealed with the key of the person
 * at the keyboard (the impersonating admin while impersonating): every service stores it in its events as it
 * gets it, so a deleted person's addresses are unreadable everywhere (crypto-shredding).
 */
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { IdentityServiceClient, Principal } from '@meridian/proto/meridian/identity/v1/identity';
import {
  MemoryPersonalDataKeys,
  PersonalData,
  isSealed,
  sealedOwner,
  type PersonalDataKeys,
} from '@meridian/platform/personalData';
import { createAuth } from './auth.js';
import type { CookiePolicy } from './cookies.js';
import { HttpError } from './errors.js';
import { SERVICE_UNAVAILABLE } from './refusals.js';

const ADDRESS = '2001:db8:77::42';

const principalOf = (over: Partial<Principal> = {}): Principal => ({
  userId: 'user-1',
  sessionId: 'session-1',
  role: 'subscriber',
  impersonatorId: '',
  refreshedSessionToken: '',
  ...over,
});

/** An identity whose Authenticate answers `principal` for every token. */
const identityAnswering = (principal: Principal) =>
  ({
    authenticate: (
      _req: unknown,
      _md: unknown,
      _opts: unknown,
      cb: (err: Error | null, res?: Principal) => void,
    ) => cb(null, principal),
  }) as unknown as IdentityServiceClient;

/** A request with a bearer token from `ip` (what Express resolved through TRUST_PROXY), and its response. */
function exchange(ip: string | undefined) {
  const req = {
    cookies: {},
    ip,
    get: (h: string) => (h.toLowerCase() === 'authorization' ? 'Bearer a-token' : undefined),
  } as unknown as Request;
  const res = { locals: {} } as unknown as Response;
  return { req, res };
}

async function callerFor(principal: Principal, personalData: PersonalData, ip: string | null = ADDRESS) {
  const auth = createAuth({
    identity: identityAnswering(principal),
    cookies: {} as CookiePolicy,
    personalData,
  });
  const { req, res } = exchange(ip ?? undefined);
  const { caller } = await auth.required(req, res);
  return { ...caller, address: caller.address ?? '' };
}

describe('the Caller sent to the services', () => {
  it("carries the client address sealed with the user's own key, never in clear", async () => {
    const personalData = new PersonalData(new MemoryPersonalDataKeys());
    const caller = await callerFor(principalOf(), personalData);
    expect(caller.userId).toBe('user-1');
    expect(isSealed(caller.address)).toBe(true);
    expect(sealedOwner(caller.address)).toBe('user-1');
    expect(caller.address).not.toContain(ADDRESS);
    expect(await personalData.open(caller.address)).toBe(ADDRESS);
    // sealed each time afresh: two requests' copies do not link by their bytes
    const again = await callerFor(principalOf(), personalData);
    expect(again.address).not.toBe(caller.address);
    expect(await personalData.open(again.address)).toBe(ADDRESS);
  });

  it("while an admin impersonates: sealed with the admin's key (the person at the keyboard)", async () => {
    const personalData = new PersonalData(new MemoryPersonalDataKeys());
    const caller = await callerFor(principalOf({ impersonatorId: 'admin-1' }), personalData);
    expect(caller.impersonatorId).toBe('admin-1');
    expect(sealedOwner(caller.address)).toBe('admin-1');
    expect(await personalData.open(caller.address)).toBe(ADDRESS);
    // the user's deletion leaves the admin's address readable; the admin's makes it unreadable
    await personalData.shred('user-1');
    expect(await personalData.open(caller.address)).toBe(ADDRESS);
    await personalData.shred('admin-1');
    expect(await personalData.open(caller.address)).toBe('[deleted]');
  });

  it('no address: empty; a deleted person (key destroyed): empty, nothing readable written', async () => {
    const personalData = new PersonalData(new MemoryPersonalDataKeys());
    expect((await callerFor(principalOf(), personalData, null)).address).toBe('');
    await personalData.shred('user-1');
    expect((await callerFor(principalOf(), personalData)).address).toBe('');
  });

  it('the key store failing: 503 (never the address in clear), and no refusal of the session', async () => {
    const failing: PersonalDataKeys = {
      find: () => Promise.reject(new Error('identity unreachable')),
      findOrCreate: () => Promise.reject(new Error('identity unreachable')),
      destroy: () => Promise.resolve(),
    };
    const auth = createAuth({
      identity: identityAnswering(principalOf()),
      cookies: {} as CookiePolicy,
      personalData: new PersonalData(failing),
    });
    const { req, res } = exchange(ADDRESS);
    const err = await auth.required(req, res).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 503, message: SERVICE_UNAVAILABLE });
    expect((err as { cause?: Error }).cause?.message).toBe('identity unreachable');
    expect(res.locals.auth).toBeUndefined();
  });
});
