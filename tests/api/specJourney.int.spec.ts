/**
 * The spec-only journey (../support/specJourney.ts) against the standalone target started exactly as
 * `make start` starts it, with PLANS_JSON's Starter plan maturing in about a second: a client that knows only
 * spec §7 registers, verifies, logs in from a new browser, deposits, invests, passes KYC, withdraws, reads
 * its history and referrals; the admin decides every item without any call of ours (no claim first).
 */
import { expect } from 'vitest';
import { FAST_PLANS } from '@meridian/gateway/testing/money';
import { describeTargetJourney, restartableTarget } from '../support/apiJourney.js';
import { runSpecJourney } from '../support/specJourney.js';

const ADMIN = { email: 'spec-journey-admin@example.com', password: 'Spec-Journey-Admin-1!' };
const specTarget = restartableTarget('spec-journey', {
  adminEmail: ADMIN.email,
  adminPassword: ADMIN.password,
  env: { PLANS_JSON: FAST_PLANS },
});

describeTargetJourney(
  specTarget,
  {
    title: 'a client of spec §7 alone against `make start`',
    journey:
      'register, verify, new-browser login, deposit, confirm, invest, approve, mature, KYC, withdraw, history, referrals, impersonation',
    timeout: 180_000,
  },
  async (target) => {
    const { calls } = await runSpecJourney({
      investorUrl: target.url,
      adminListUrl: target.url,
      adminDecideUrl: target.url,
      mailboxUrl: target.url,
      admin: ADMIN,
      plan: { name: 'Starter', ratePercent: 12 },
      waitMs: 30_000,
    });
    expect(calls.some((c) => c.includes('/claims'))).toBe(false);
  },
);
