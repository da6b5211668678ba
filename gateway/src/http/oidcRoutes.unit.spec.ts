/**
 * OIDC_PROVIDERS as the config schema reads it, and the OpenID Connect routes' per-client budget (the flow
 * itself runs against a real provider in oidc.int.spec.ts).
 */
import { createServer } from 'node:http';
import cookieParser from 'cookie-parser';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createMemoryKeyValueStore } from '@meridian/platform/adapters/keyValue.memory';
import { listenOn } from '@meridian/platform/util/freePort';
import { parseGatewayConfig, type GatewayConfig } from '../config.js';
import { silentLogger } from '../logger.js';
import { oidcRouter } from './oidcRoutes.js';

const providers = (value: unknown, env: Record<string, string> = {}) =>
  parseGatewayConfig({ ...env, OIDC_PROVIDERS: typeof value === 'string' ? value : JSON.stringify(value) })
    .oidcProviders;
const refusal = (value: unknown, env: Record<string, string> = {}) => {
  try {
    providers(value, env);
    return 'accepted';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('OIDC_PROVIDERS', () => {
  it('reads a list of providers; an entry with id google is Google unless it says otherwise', () => {
    expect(
      providers([
        { id: 'google', clientId: 'g-client', clientSecret: 'g-secret' },
        {
          id: 'corp-sso',
          name: 'Corp SSO',
          issuer: 'https://sso.example.com/realms/corp',
          clientId: 'meridian',
        },
      ]),
    ).toEqual([
      {
        id: 'google',
        name: 'Google',
        issuer: 'https://accounts.google.com',
        clientId: 'g-client',
        clientSecret: 'g-secret',
      },
      {
        id: 'corp-sso',
        name: 'Corp SSO',
        issuer: 'https://sso.example.com/realms/corp',
        clientId: 'meridian',
      },
    ]);
  });

  it('is none when unset or empty', () => {
    expect(parseGatewayConfig({}).oidcProviders).toEqual([]);
    expect(providers('')).toEqual([]);
  });

  it('refuses what it cannot use, naming the problem', () => {
    expect(refusal('{not json')).toMatch(/OIDC_PROVIDERS: must be JSON/);
    expect(refusal({ id: 'google', clientId: 'x' })).toMatch(/must be a JSON list of providers/);
    expect(refusal([{ id: 'Corp SSO', name: 'C', issuer: 'https://c.example', clientId: 'x' }])).toMatch(
      /id must be 1-40 lower-case letters, digits or -/,
    );
    expect(refusal([{ id: 'corp', clientId: 'x' }])).toMatch(/name is required.*issuer is required/);
    expect(refusal([{ id: 'corp', name: 'C', issuer: 'not a url', clientId: 'x' }])).toMatch(
      /issuer must be an http\(s\):\/\/ URL/,
    );
    expect(refusal([{ id: 'google' }])).toMatch(/clientId/);
    expect(refusal([{ id: 'google', clientId: 'x', secret: 'typo' }])).toMatch(/must be \{"id"/);
    expect(
      refusal([
        { id: 'google', clientId: 'a' },
        { id: 'google', clientId: 'b' },
      ]),
    ).toMatch(/ids must be distinct/);
  });

  it('takes a plain-HTTP issuer only outside production', () => {
    const local = [{ id: 'dev', name: 'Dev IdP', issuer: 'http://127.0.0.1:4000', clientId: 'x' }];
    expect(refusal(local)).toBe('accepted');
    expect(
      refusal(local, { NODE_ENV: 'production', KYC_INTERNAL_TOKEN: 'a-production-kyc-token-0123456789' }),
    ).toMatch(/issuer of dev must be https:\/\/ in production/);
  });

  it('needs INTERNAL_SERVICE_TOKEN in production (identity takes the claims from nobody else)', () => {
    const google = [{ id: 'google', clientId: 'g' }];
    const production = { NODE_ENV: 'production', KYC_INTERNAL_TOKEN: 'a-production-kyc-token-0123456789' };
    expect(refusal(google, production)).toMatch(
      /INTERNAL_SERVICE_TOKEN: is required in production with OIDC_PROVIDERS/,
    );
    expect(
      refusal(google, { ...production, INTERNAL_SERVICE_TOKEN: 'a-production-service-token-0123' }),
    ).toBe('accepted');
  });
});

describe('the OpenID Connect routes', () => {
  it('share a per-client budget; over it, the browser lands on /login with the reason', async () => {
    const config = {
      ...parseGatewayConfig({}),
      rateLimits: { oidc: { max: 2, windowMs: 60_000 } },
    } satisfies GatewayConfig;
    const app = express();
    app.use(cookieParser());
    app.use(
      '/api',
      oidcRouter({ config, identity: {} as never, kv: createMemoryKeyValueStore(), logger: silentLogger }),
    );
    const server = createServer(app);
    const port = await listenOn(server, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${port}/api/auth/oidc/nobody`;
    try {
      const where = async (path: string) =>
        (await fetch(`${base}${path}`, { redirect: 'manual' })).headers.get('location');
      expect(await where('/start')).toBe('/login?error=unknown_provider');
      expect(await where('/callback?code=c&state=s')).toBe('/login?error=unknown_provider');
      expect(await where('/start')).toBe('/login?error=too_many_requests');
      expect(await where('/callback?code=c&state=s')).toBe('/login?error=too_many_requests');
    } finally {
      server.close();
    }
  });
});
