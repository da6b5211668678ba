import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@meridian/platform/config';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { DEFAULT_PLANS } from './domain/plan.js';
import { parseInvestmentConfig } from './config.js';

const QUICK = [{ name: 'Quick', minAmount: 100, maxAmount: 1000, ratePercent: 10, durationMs: 2000 }];

describe('investment config', () => {
  it('defaults: addresses and the plans of docs/architecture.md §3a', () => {
    const c = parseInvestmentConfig({});
    expect(c.INVESTMENT_GRPC_ADDR).toBe('0.0.0.0:50055');
    expect(c.LEDGER_GRPC_URL).toBe('127.0.0.1:50054');
    expect(c.plans).toEqual(DEFAULT_PLANS);
  });

  it('PLANS_JSON replaces the plans and wins over PLANS_FILE', () => {
    const c = parseInvestmentConfig({ PLANS_JSON: JSON.stringify(QUICK), PLANS_FILE: '/nonexistent.json' });
    expect(c.plans).toEqual([
      { name: 'Quick', minAmountCents: 10_000, maxAmountCents: 100_000, rateBps: 1000, durationMs: 2000 },
    ]);
  });

  it('PLANS_FILE replaces the plans', () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'plans.json');
      writeFileSync(file, JSON.stringify({ plans: QUICK }));
      expect(parseInvestmentConfig({ PLANS_FILE: file }).plans.map((p) => p.name)).toEqual(['Quick']);
    } finally {
      dir.remove();
    }
  });

  it('a bad value stops start-up naming the variable', () => {
    expect(() => parseInvestmentConfig({ PLANS_JSON: '[]' })).toThrow(
      /PLANS_JSON: plans: expected a non-empty list/,
    );
    expect(() => parseInvestmentConfig({ PLANS_FILE: '/nonexistent/plans.json' })).toThrow(
      /PLANS_FILE: cannot be read/,
    );
    expect(() => parseInvestmentConfig({ LEDGER_GRPC_URL: 'nope' })).toThrow(ConfigError);
  });
});
