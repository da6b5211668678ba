import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { describe, expect, it } from 'vitest';
import { DAY_MS, DEFAULT_PLANS, findPlan, isWithinPlan, loadPlans, planRangeText } from './plan.js';

const starter = { name: 'Starter', minAmount: 100, maxAmount: 500, ratePercent: 12, durationMs: 2000 };

describe('DEFAULT_PLANS (docs/architecture.md §3a)', () => {
  it('are the six plans with their bounds, flat rates and durations', () => {
    expect(
      DEFAULT_PLANS.map((p) => [
        p.name,
        p.minAmountCents,
        p.maxAmountCents,
        p.rateBps,
        p.durationMs / DAY_MS,
      ]),
    ).toEqual([
      ['Starter', 10_000, 50_000, 1200, 1],
      ['Bronze', 50_000, 150_000, 1500, 3],
      ['Silver', 200_000, 500_000, 1800, 5],
      ['Gold', 500_000, 1_000_000, 2000, 7],
      ['Diamond', 1_000_000, 5_000_000, 2300, 9],
      ['Platinum', 5_000_000, 10_000_000, 2700, 11],
    ]);
    expect(DAY_MS).toBe(86_400_000);
  });

  it('cannot be changed by accident', () => {
    expect(Object.isFrozen(DEFAULT_PLANS)).toBe(true);
  });

  it('bounds are inclusive', () => {
    const bronze = findPlan(DEFAULT_PLANS, 'Bronze')!;
    expect(isWithinPlan(bronze, 50_000)).toBe(true);
    expect(isWithinPlan(bronze, 150_000)).toBe(true);
    expect(isWithinPlan(bronze, 49_999)).toBe(false);
    expect(isWithinPlan(bronze, 150_001)).toBe(false);
  });

  it('finds a plan by name, trimmed and case-insensitively, and names its range in dollars', () => {
    expect(findPlan(DEFAULT_PLANS, ' gold ')?.name).toBe('Gold');
    expect(findPlan(DEFAULT_PLANS, 'Titanium')).toBeUndefined();
    expect(planRangeText(findPlan(DEFAULT_PLANS, 'Platinum')!)).toBe('$50,000 to $100,000');
  });
});

describe('loadPlans', () => {
  it('reads a list of plans in dollars, percent and milliseconds', () => {
    expect(
      loadPlans([
        starter,
        { name: 'Quick', minAmount: '50.50', maxAmount: 60, ratePercent: '2.5', durationMs: 1 },
      ]),
    ).toEqual([
      { name: 'Starter', minAmountCents: 10_000, maxAmountCents: 50_000, rateBps: 1200, durationMs: 2000 },
      { name: 'Quick', minAmountCents: 5_050, maxAmountCents: 6_000, rateBps: 250, durationMs: 1 },
    ]);
  });

  it('reads JSON text and the { plans: [...] } form', () => {
    expect(loadPlans(JSON.stringify({ plans: [starter] }))[0].name).toBe('Starter');
    expect(loadPlans(JSON.stringify([starter]))[0].rateBps).toBe(1200);
  });

  it('accepts min equal to max', () => {
    expect(loadPlans([{ ...starter, maxAmount: 100 }])[0].maxAmountCents).toBe(10_000);
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['an empty list', [], /non-empty list/],
    ['an object without plans', { other: [] }, /non-empty list/],
    ['a non-object plan', [42], /plans\[0\]: expected an object/],
    ['an unknown field (typo)', [{ ...starter, rate: 12 }], /plans\[0\]: unknown field rate/],
    ['a missing name', [{ ...starter, name: '  ' }], /plans\[0\]\.name/],
    [
      'duplicate names, any case',
      [starter, { ...starter, name: 'STARTER' }],
      /plans\[1\]\.name: duplicate plan STARTER/,
    ],
    ['a zero minimum', [{ ...starter, minAmount: 0 }], /plans\[0\]\.minAmount: must be greater than zero/],
    [
      'a negative amount',
      [{ ...starter, minAmount: -1 }],
      /plans\[0\]\.minAmount: Amount cannot be negative/,
    ],
    [
      '3 decimals',
      [{ ...starter, maxAmount: '500.001' }],
      /plans\[0\]\.maxAmount: Amount can have at most 2 decimal places/,
    ],
    ['min above max', [{ ...starter, minAmount: 600 }], /plans\[0\]\.maxAmount: must not be below minAmount/],
    ['a zero rate', [{ ...starter, ratePercent: 0 }], /ratePercent: must be above 0/],
    [
      'an absurd rate',
      [{ ...starter, ratePercent: 1000.01 }],
      /ratePercent: must be above 0 and at most 1000/,
    ],
    ['a missing rate', [{ ...starter, ratePercent: undefined }], /ratePercent: Please enter a valid amount/],
    [
      'a fractional duration',
      [{ ...starter, durationMs: 1.5 }],
      /durationMs: must be a positive whole number/,
    ],
    ['a zero duration', [{ ...starter, durationMs: 0 }], /durationMs/],
    ['a duration as text', [{ ...starter, durationMs: '1000' }], /durationMs/],
  ])('refuses %s, naming the plan and field', (_what, input, message) => {
    expect(() => loadPlans(input)).toThrow(DomainError);
    expect(() => loadPlans(input)).toThrow(
      expect.objectContaining({ kind: 'invalid', message: expect.stringMatching(message) }),
    );
  });
});
