/**
 * Google sign-in against a LOCAL OIDC issuer: an RSA key pair whose JWKS is served on 127.0.0.1:0; and
 * ExternalLogin, the same account rules for the claims of a flow the gateway completed.
 */
import { createServer, type Server } from 'node:http';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import jwt from 'jsonwebtoken';
import { Metadata } from '@grpc/grpc-js';
import { callUnary } from '@meridian/platform/grpc/index';
import { DEV_INTERNAL_SERVICE_TOKEN, SERVICE_TOKEN_METADATA } from '@meridian/platform/personalData';
import { expectStatus, grpc } from '@meridian/platform/testing/grpcStatus';
import { listenOn } from '@meridian/platform/util/freePort';
import { ExternalLoginRequest } from '@meridian/proto/meridian/identity/v1/identity';
import { startHarness, type Harness } from '../testing/harness.js';

const { status } = grpc;
const ISSUER = 'https://issuer.meridian.test';
const CLIENT_ID = 'meridian-test-client.apps.example.com';
const INVALID = 'Google sign-in failed: invalid credential';

const issuerKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const strangerKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
let jwksServer: Server;
let jwksUrl: string;
let jwksHits = 0;

beforeAll(async () => {
  const jwk = { ...issuerKey.publicKey.export({ format: 'jwk' }), kid: 'key-1', alg: 'RS256', use: 'sig' };
  jwksServer = createServer((req, res) => {
    jwksHits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  const port = await listenOn(jwksServer, 0, '127.0.0.1');
  jwksUrl = `http://127.0.0.1:${port}/jwks`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
});

let h: Harness;
beforeEach(async () => {
  h = await startHarness({
    env: { GOOGLE_CLIENT_ID: CLIENT_ID, OIDC_ISSUER: ISSUER, OIDC_JWKS_URL: jwksUrl },
  });
});
afterEach(async () => {
  await h.stop();
});

function idToken(
  claims: Record<string, unknown> = {},
  options: {
    key?: KeyObject;
    audience?: string;
    issuer?: string;
    lifetimeS?: number;
    iatOffsetS?: number;
  } = {},
): string {
  const iat = Math.floor(h.now().getTime() / 1000) + (options.iatOffsetS ?? 0);
  return jwt.sign(
    {
      sub: 'google-sub-1',
      email: 'gina@example.com',
      email_verified: true,
      name: 'Gina G',
      iat,
      exp: iat + (options.lifetimeS ?? 3600),
      ...claims,
    },
    options.key ?? issuerKey.privateKey,
    {
      algorithm: 'RS256',
      keyid: 'key-1',
      issuer: options.issuer ?? ISSUER,
      audience: options.audience ?? CLIENT_ID,
    },
  );
}

describe('Google sign-in (OIDC ID token)', () => {
  it('creates a verified user on first sign-in, finds the same user afterwards, and caches the JWKS', async () => {
    const hitsBefore = jwksHits;
    const first = await h.call('googleLogin', { credential: idToken() });
    expect(first.message).toBe('Login Successful');
    expect(first.user).toMatchObject({
      email: 'gina@example.com',
      name: 'Gina G',
      isVerified: true,
      role: 'subscriber',
    });
    expect(first.deviceToken).not.toBe('');
    const p = await h.call('authenticate', { sessionToken: first.sessionToken });
    expect(p.userId).toBe(first.user!.id);

    const second = await h.call('googleLogin', { credential: idToken({ email: 'GINA@example.com' }) });
    expect(second.user!.id).toBe(first.user!.id);
    expect(jwksHits - hitsBefore).toBe(1);
    const types = (await h.events())
      .filter((e) => (e.data as { userId?: string }).userId === first.user!.id)
      .map((e) => e.type);
    // one user, verified once; each of the two sign-ins is a security event of its own
    expect(types).toEqual(['UserRegistered', 'UserVerified', 'UserSignedIn', 'UserSignedIn']);
  });

  it('refuses a wrong audience, a wrong issuer, an expired token and a foreign signature', async () => {
    await expectStatus(
      h.call('googleLogin', { credential: idToken({}, { audience: 'someone-else' }) }),
      status.UNAUTHENTICATED,
      INVALID,
    );
    await expectStatus(
      h.call('googleLogin', { credential: idToken({}, { issuer: 'https://evil.example.com' }) }),
      status.UNAUTHENTICATED,
      INVALID,
    );
    await expectStatus(
      h.call('googleLogin', { credential: idToken({}, { iatOffsetS: -7200, lifetimeS: 3600 }) }),
      status.UNAUTHENTICATED,
      INVALID,
    );
    await expectStatus(
      h.call('googleLogin', { credential: idToken({}, { key: strangerKey.privateKey }) }),
      status.UNAUTHENTICATED,
      INVALID,
    );
    await expectStatus(h.call('googleLogin', { credential: 'not-a-jwt' }), status.UNAUTHENTICATED, INVALID);
    await expectStatus(
      h.call('googleLogin', { credential: idToken({ email_verified: false }) }),
      status.INVALID_ARGUMENT,
      'Your Google email address is not verified',
    );
    expect(await h.events('UserRegistered')).toHaveLength(1); // the first admin only
  });

  it('links an existing account by email; a never-verified one is verified and its password cleared', async () => {
    const user = await h.register({ email: 'gina@example.com' });
    const res = await h.call('googleLogin', { credential: idToken() });
    expect(res.user).toMatchObject({ id: user.user!.id, isVerified: true });
    await expectStatus(
      h.call('login', { email: user.email, password: user.password, deviceToken: user.deviceToken }),
      status.INVALID_ARGUMENT,
      'Invalid email or password',
    );
  });

  it("linking a never-verified account ends the registrant's sessions and trusted browsers", async () => {
    const registrant = await h.register({ email: 'gina@example.com' });
    const registrantCaller = await h.callerOf(registrant.sessionToken);
    const linked = await h.call('googleLogin', { credential: idToken() });
    expect(linked.user).toMatchObject({ id: registrant.user!.id, isVerified: true });

    // the registrant's cookie no longer reads the now verified account
    await expectStatus(
      h.call('authenticate', { sessionToken: registrant.sessionToken }),
      status.UNAUTHENTICATED,
      'Not authorized, please login',
    );
    await expectStatus(h.call('getUser', { caller: registrantCaller }), status.UNAUTHENTICATED);
    expect((await h.call('authenticate', { sessionToken: linked.sessionToken })).userId).toBe(
      registrant.user!.id,
    );

    // the owner sets a password from their mailbox; the registrant's browser is not trusted any more
    await h.call('forgotPassword', { email: 'gina@example.com' });
    const token = await h.latestSecret('PasswordResetRequested', 'gina@example.com');
    await h.call('resetPassword', { resetToken: token, password: 'Owner-pass-1' });
    await expectStatus(
      h.call('login', {
        email: 'gina@example.com',
        password: 'Owner-pass-1',
        deviceToken: registrant.deviceToken,
      }),
      status.FAILED_PRECONDITION,
      'New browser or device detected',
    );
    const owner = await h.call('login', {
      email: 'gina@example.com',
      password: 'Owner-pass-1',
      deviceToken: linked.deviceToken,
    });
    expect(owner.user!.id).toBe(registrant.user!.id);
  });

  it("linking an already verified account keeps its owner's sessions", async () => {
    const user = await h.register({ email: 'gina@example.com' });
    await h.call('verifyUser', {
      verificationToken: await h.latestSecret('EmailVerificationRequested', user.email),
    });
    await h.call('googleLogin', { credential: idToken() });
    expect((await h.call('authenticate', { sessionToken: user.sessionToken })).userId).toBe(user.user!.id);
  });

  it('links by canonical email (case and plus-tags)', async () => {
    const user = await h.register({ email: 'gina@example.com' });
    const res = await h.call('googleLogin', { credential: idToken({ email: 'Gina+news@Example.com' }) });
    expect(res.user!.id).toBe(user.user!.id);
    expect(await h.events('UserRegistered')).toHaveLength(2); // the first admin and Gina
  });

  it('refuses a suspended account', async () => {
    const first = await h.call('googleLogin', { credential: idToken() });
    const admin = await h.signInWithCode(h.admin.email);
    await h.call('upgradeUser', {
      caller: await h.callerOf(admin.sessionToken),
      userId: first.user!.id,
      role: 'suspended',
    });
    await expectStatus(
      h.call('googleLogin', { credential: idToken() }),
      status.PERMISSION_DENIED,
      'Your account has been suspended. Please contact support',
    );
  });
});

describe('Google sign-in without GOOGLE_CLIENT_ID', () => {
  it('answers FAILED_PRECONDITION (a permanent refusal, never UNAVAILABLE)', async () => {
    const bare = await startHarness();
    try {
      await expectStatus(
        bare.call('googleLogin', { credential: 'x' }),
        status.FAILED_PRECONDITION,
        'Google sign-in is not available',
      );
    } finally {
      await bare.stop();
    }
  });
});

describe('ExternalLogin (claims of an OpenID Connect flow the gateway checked)', () => {
  const claims = {
    provider: 'Test IdP',
    subject: 'idp-sub-1',
    email: 'ida@example.com',
    emailVerified: true,
    name: 'Ida',
    picture: '',
  };
  /** ExternalLogin as the gateway calls it: with the shared service token (its development default here). */
  const externalLogin = (request: Partial<ExternalLoginRequest>, token = DEV_INTERNAL_SERVICE_TOKEN) => {
    const metadata = new Metadata();
    if (token) metadata.set(SERVICE_TOKEN_METADATA, token);
    return callUnary(h.client, 'externalLogin', ExternalLoginRequest.fromPartial(request), { metadata });
  };

  it("signs in with Google's account rules and records the provider's name", async () => {
    const res = await externalLogin(claims);
    expect(res.user).toMatchObject({ email: 'ida@example.com', isVerified: true });
    const signIns = (await h.events('UserSignedIn')).map((e) => e.data as { method: string });
    expect(signIns).toEqual([expect.objectContaining({ method: 'oidc:Test IdP' })]);
    await expectStatus(
      externalLogin({ ...claims, email: 'other@example.com', emailVerified: false }),
      status.INVALID_ARGUMENT,
      'Your Test IdP email address is not verified',
    );
  });

  it('answers only a caller that presents the service token (the gateway)', async () => {
    await expectStatus(externalLogin(claims, ''), status.PERMISSION_DENIED, 'Not authorized');
    await expectStatus(externalLogin(claims, 'a-guessed-token'), status.PERMISSION_DENIED, 'Not authorized');
    expect(await h.events('UserSignedIn')).toHaveLength(0);
  });

  it('refuses claims without a provider, subject or email', async () => {
    for (const missing of ['provider', 'subject', 'email'])
      await expectStatus(
        externalLogin({ ...claims, [missing]: '' }),
        status.INVALID_ARGUMENT,
        'Sign-in failed: the provider gave no subject or email',
      );
    expect(await h.events('UserRegistered')).toHaveLength(1); // the first admin only
  });
});
