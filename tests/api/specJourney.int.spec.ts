/**
 * The spec-only journey (../support/specJourney.ts) against the standalone target started exactly as
 * `make start` starts it, with PLANS_JSON's Starter plan maturing in about a second: a client that knows only
 * spec §7 registers, verifies, logs in from a new browser, deposits, invests, passes KYC, withdraws, reads
 * its history and referrals; the admin decides every item without any call of ours (no claim first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST_PLANS } from '@meridian/gateway/testing/money';
import { startTarget, stopTarget, type RunningTarget } from '../support/standalone.js';
import { runSpecJourney } from '../support/specJourney.js';

const ADMIN = { email: 'spec-journey-admin@example.com', password: 'Spec-Journey-Admin-1!' };
const dataDir = mkdtempSync(join(tmpdir(), 'meridian-spec-journey-'));
let target: RunningTarget | undefined;

afterAll(async () => {
  if (target) await stopTarget(target);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a client of spec §7 alone against `make start`', () => {
  it(
    'register, verify, new-browser login, deposit, confirm, invest, approve, mature, KYC, withdraw, history, referrals, impersonation',
    { timeout: 180_000 },
    async () => {
      target = await startTarget({
        dataDir,
        adminEmail: ADMIN.email,
        adminPassword: ADMIN.password,
        env: { PLANS_JSON: FAST_PLANS },
      });
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
});
