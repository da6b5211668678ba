import { describe, expect, it } from 'vitest';
import { ConfigError } from '@meridian/platform/config';
import { DEV_DEFAULTS, parseIdentityConfig } from './config.js';

describe('identity config', () => {
  it('uses development defaults outside production and says which', () => {
    const c = parseIdentityConfig({ NODE_ENV: 'development' });
    expect(c).toMatchObject({
      IDENTITY_GRPC_ADDR: '0.0.0.0:50051',
      APP_URL: 'http://localhost:8080',
      JWT_SECRET: DEV_DEFAULTS.JWT_SECRET,
      ADMIN_EMAIL: DEV_DEFAULTS.ADMIN_EMAIL,
      OIDC_ISSUER: 'https://accounts.google.com',
      OIDC_JWKS_URL: 'https://www.googleapis.com/oauth2/v3/certs',
    });
    expect(c.GOOGLE_CLIENT_ID).toBeUndefined();
    expect(c.usedDevDefaults).toEqual(['JWT_SECRET', 'SECRETS_KEY', 'ADMIN_EMAIL', 'ADMIN_PASSWORD']);
  });

  it('requires every secret in production and names the missing variables', () => {
    let error: unknown;
    try {
      parseIdentityConfig({ NODE_ENV: 'production' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const v of ['JWT_SECRET', 'SECRETS_KEY', 'ADMIN_EMAIL', 'ADMIN_PASSWORD'])
      expect(message).toContain(v);
  });

  it('refuses a short JWT_SECRET and a malformed SECRETS_KEY, naming them', () => {
    expect(() => parseIdentityConfig({ JWT_SECRET: 'short', SECRETS_KEY: 'xyz' })).toThrow(
      /JWT_SECRET: must be at least 32 characters.*SECRETS_KEY: must be 64 hex characters/,
    );
  });

  it('accepts a full production environment', () => {
    const c = parseIdentityConfig({
      NODE_ENV: 'production',
      JWT_SECRET: 'p'.repeat(40),
      SECRETS_KEY: 'ab'.repeat(32),
      ADMIN_EMAIL: 'root@meridian.example',
      ADMIN_PASSWORD: 'Str0ng-pass',
      GOOGLE_CLIENT_ID: 'client-id',
    });
    expect(c.usedDevDefaults).toEqual([]);
    expect(c.GOOGLE_CLIENT_ID).toBe('client-id');
  });
});
