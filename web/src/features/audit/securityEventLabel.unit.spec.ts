import { describe, expect, it } from 'vitest';
import { securityEventLabel } from './SecurityEventsList';
import type { SecurityEvent } from './auditApi';

const event = (kind: SecurityEvent['kind'], method: string): SecurityEvent => ({
  id: 'e1',
  at: '2026-01-01T00:00:00Z',
  kind,
  method,
  address: '',
});

describe('securityEventLabel', () => {
  it('names the OpenID Connect provider of a sign-in through one', () => {
    expect(securityEventLabel(event('new_device', 'oidc:Test IdP'))).toBe(
      'Sign-in from a new browser with Test IdP',
    );
    expect(securityEventLabel(event('login', 'oidc:Keycloak'))).toBe('Sign-in with Keycloak');
  });

  it('keeps the words of the other methods', () => {
    expect(securityEventLabel(event('login', 'google'))).toBe('Sign-in with Google');
    expect(securityEventLabel(event('login', 'password'))).toBe('Sign-in with your password');
  });
});
