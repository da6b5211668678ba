import { describe, expect, it } from 'vitest';
import { resolveSiteLink } from './sendAutomatedEmail.js';

describe('links in automated emails stay on the site', () => {
  const app = 'https://meridian.example';
  it('accepts paths and absolute URLs on APP_URL, defaults to the dashboard', () => {
    expect(resolveSiteLink('/invest-status', app)).toBe('https://meridian.example/invest-status');
    expect(resolveSiteLink('https://meridian.example/withdraw-wallet?x=1', app)).toBe(
      'https://meridian.example/withdraw-wallet?x=1',
    );
    expect(resolveSiteLink('', app)).toBe('https://meridian.example/dashboard');
  });
  it('refuses other origins, protocol-relative and script URLs', () => {
    for (const bad of [
      'https://evil.example/',
      '//evil.example/x',
      'javascript:alert(1)',
      'http://meridian.example/',
      'https://meridian.example.evil.io/',
      'not a url',
    ]) {
      expect(resolveSiteLink(bad, app)).toBeNull();
    }
  });
});
