import { describe, expect, it } from 'vitest';
import { extractLinks } from '../links.js';
import { escapeHtml, joinUrl } from './layout.js';
import {
  automatedTemplateNames,
  formatUsd,
  isTemplateName,
  renderEmail,
  templates,
  type TemplateData,
  type TemplateName,
} from './registry.js';

const ctx = { appUrl: 'https://app.meridian.test' };
const render = <N extends TemplateName>(name: N, data: TemplateData<N>) => renderEmail(name, data, ctx);

/** The email gives `url` in its text and links it from the HTML. */
function expectLink(email: { text: string; html: string }, url: string): void {
  expect(email.text).toContain(url);
  expect(email.html).toContain(`href="${url}"`);
}

/** One sample per template: adding a template without a sample fails type-checking. */
const samples: { [N in TemplateName]: TemplateData<N> } = {
  verifyEmail: { name: 'Ada', token: 'tok-123' },
  loginCode: { name: 'Ada', code: '042917', email: 'ada@example.com' },
  resetPassword: { name: 'Ada', token: 'reset-456' },
  passwordChanged: { name: 'Ada', via: 'change', changedAt: '2025-01-02T03:04:05.000Z' },
  roleChanged: { name: 'Ada', fromRole: 'subscriber', toRole: 'author' },
  depositConfirmed: { name: 'Ada', amountCents: 125_000, transactionId: 'tx1' },
  depositRejected: { name: 'Ada', amountCents: 5_000, transactionId: 'tx2', notes: 'No payment received' },
  investmentApproved: {
    name: 'Ada',
    investmentId: 'inv1',
    planName: 'Gold',
    amountCents: 600_000,
    maturityAmountCents: 720_000,
    endDate: '2025-02-01',
  },
  investmentRejected: { name: 'Ada', investmentId: 'inv2', planName: 'Starter', amountCents: 10_000 },
  investmentMatured: { name: 'Ada', investmentId: 'inv3', planName: 'Bronze', maturityAmountCents: 57_500 },
  withdrawalRequested: { name: 'Ada', withdrawalId: 'w1', amountCents: 10_000, walletAddress: 'bc1qxyz' },
  withdrawalApproved: { name: 'Ada', withdrawalId: 'w1', amountCents: 10_000, walletAddress: 'bc1qxyz' },
  withdrawalRejected: { name: 'Ada', withdrawalId: 'w2', amountCents: 10_000 },
  referralBonus: { name: 'Ada', amountCents: 500, refereeName: 'Grace' },
  kycSubmitted: { name: 'Admin', userName: 'Grace', userEmail: 'grace@example.com' },
  kycApproved: { name: 'Ada' },
  kycRejected: { name: 'Ada', reason: 'Blurry photo' },
  supportReply: { name: 'Ada', link: '/dashboard?support=open' },
  supportStarted: { name: 'Ada', link: '/?support=c1.secret' },
  investmentNotice: { name: 'Ada', url: 'https://app.meridian.test/invest-status' },
  depositNotice: { name: 'Ada', url: 'https://app.meridian.test/transaction-History' },
  withdrawalNotice: { name: 'Ada', url: 'https://app.meridian.test/transaction-History' },
};

describe('account emails', () => {
  it('verification email links to APP_URL/verify/{token} in text and in the one button, valid 24 hours', () => {
    const email = render('verifyEmail', { name: 'Ada', token: 'abc_DEF-123' });
    expect(email.subject).toBe('Verify your email address');
    expectLink(email, 'https://app.meridian.test/verify/abc_DEF-123');
    expect(email.text).toContain('24 hours');
    expect(email.html).toContain('Verify email');
    expect(email.text).toContain('Hi Ada,');
  });

  it('login code email shows the 6 digits and a 15-minute validity', () => {
    const email = render('loginCode', { name: 'Ada', code: '042917', email: 'ada@example.com' });
    expect(email.subject).toContain('042917');
    expect(email.text).toMatch(/\b042917\b/);
    expect(email.text).toContain('15 minutes');
    expect(email.html).toContain('042917');
    expect(email.html).toContain('15 minutes');
    expect(extractLinks(email.html, email.text)).toContain(
      'https://app.meridian.test/loginWithCode/ada%40example.com',
    );
  });

  it('reset email links to APP_URL/resetPassword/{token}, valid 1 hour', () => {
    const email = render('resetPassword', { name: 'Ada', token: 'r3set' });
    expectLink(email, 'https://app.meridian.test/resetPassword/r3set');
    expect(email.text).toContain('1 hour');
  });

  it('password changed says how, and offers a reset when it was not the user', () => {
    const byReset = render('passwordChanged', { name: 'Ada', via: 'reset', changedAt: '' });
    expect(byReset.subject).toBe('Your Meridian password was changed');
    expect(byReset.text).toContain('reset link');
    expect(byReset.text).toContain('https://app.meridian.test/forgot');
    const byChange = render('passwordChanged', {
      name: 'Ada',
      via: 'change',
      changedAt: '2025-01-02T03:04:05.000Z',
    });
    expect(byChange.text).toContain('from your profile');
    expect(byChange.text).toContain('2025-01-02T03:04:05.000Z');
  });

  it('role changed shows both roles; a suspension reads as one', () => {
    const email = render('roleChanged', { name: 'Ada', fromRole: 'subscriber', toRole: 'admin' });
    expect(email.text).toContain('Previous role: Subscriber');
    expect(email.text).toContain('New role: Administrator');
    const suspended = render('roleChanged', { name: 'Ada', fromRole: 'subscriber', toRole: 'suspended' });
    expect(suspended.subject).toBe('Your Meridian account was suspended');
    expect(suspended.text).toContain('cannot sign in');
  });

  it('escapes what people typed (names) in HTML and keeps tokens URL-safe', () => {
    const email = render('verifyEmail', { name: '<script>alert(1)</script>', token: 'a/b?c' });
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.text).toContain('https://app.meridian.test/verify/a%2Fb%3Fc');
  });
});

describe('every template in the registry', () => {
  for (const name of Object.keys(templates) as TemplateName[]) {
    it(`${name}: plain text and HTML in the Meridian layout, with a reason in the footer and one primary button`, () => {
      const email = render(name, samples[name] as never);
      expect(email.subject.length).toBeGreaterThan(5);
      expect(email.text.startsWith('Meridian\n')).toBe(true);
      expect(email.text).toMatch(/You received this (email|security notice) because/);
      expect(email.html).toMatch(/^<!DOCTYPE html>/);
      expect(email.html).toContain('>Meridian</td>');
      expect(email.html).toMatch(/You received this (email|security notice) because/);
      expect(email.html).not.toMatch(/undefined|NaN|\[object Object\]/);
      expect(email.text).not.toMatch(/undefined|NaN|\[object Object\]/);
      const buttons = email.html.match(/border-radius:8px;background:#1d4ed8;/g) ?? [];
      expect(buttons.length).toBeLessThanOrEqual(1);
    });
  }

  it('money emails show dollars from integer cents', () => {
    expect(formatUsd(125_000)).toBe('$1,250.00');
    expect(formatUsd(5)).toBe('$0.05');
    expect(formatUsd(100_000_000)).toBe('$1,000,000.00');
    expect(formatUsd(-2_550)).toBe('-$25.50');
    const email = render('investmentApproved', samples.investmentApproved);
    expect(email.text).toContain('Amount: $6,000.00');
    expect(email.text).toContain('Amount at maturity: $7,200.00');
    expect(email.text).toContain('https://app.meridian.test/investment/inv1');
  });

  it('only the automated notices are allowlisted for SendAutomatedEmail', () => {
    expect([...automatedTemplateNames].sort()).toEqual([
      'depositNotice',
      'investmentNotice',
      'withdrawalNotice',
    ]);
    expect(isTemplateName('verifyEmail')).toBe(true);
    expect(isTemplateName('toString')).toBe(false);
    expect(isTemplateName('nope')).toBe(false);
  });

  it('an automated notice uses the given subject, else its own', () => {
    expect(
      render('investmentNotice', { ...samples.investmentNotice, subject: 'Investment placed' }).subject,
    ).toBe('Investment placed');
    expect(render('investmentNotice', samples.investmentNotice).subject).toBe(
      'Your investment request was received',
    );
  });
});

describe('layout helpers', () => {
  it('escapeHtml and joinUrl', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(joinUrl('http://localhost:8080/', '/verify/x')).toBe('http://localhost:8080/verify/x');
    expect(joinUrl('http://localhost:8080', 'verify/x')).toBe('http://localhost:8080/verify/x');
  });

  it('extractLinks finds hrefs and bare URLs once each, without trailing punctuation', () => {
    const links = extractLinks(
      '<a href="https://a.test/x?y=1&amp;z=2">go</a> <a href="mailto:x@y.z">m</a> <a href=\'https://b.test/\'>b</a>',
      'See https://a.test/x?y=1&z=2. Or https://c.test/path, thanks',
    );
    expect(links).toEqual(['https://a.test/x?y=1&z=2', 'https://b.test/', 'https://c.test/path']);
  });
});
