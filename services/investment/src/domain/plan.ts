/**
 * Investment plans (docs/architecture.md §3a) as data, and a validated loader for a replacement list (a plans file
 * or env var; tests use plans lasting seconds). Pure.
 *
 * JSON shape of a replacement list (an array, or `{ "plans": [...] }`):
 *   [{ "name": "Starter", "minAmount": 100, "maxAmount": 500, "ratePercent": 12, "durationMs": 86400000 }]
 * Amounts are dollars (at most 2 decimals), the rate a flat percentage over the whole term (at most
 * 2 decimals), the duration whole milliseconds. Bounds are inclusive.
 */
import { invalid } from '@meridian/platform/eventSourcing/errors';
import {
  type BasisPoints,
  type Cents,
  dollars,
  formatCentsShort,
  parseDollarsToCents,
  parsePercentToBasisPoints,
} from '@meridian/platform/money/money';

export type Plan = {
  name: string;
  minAmountCents: Cents;
  maxAmountCents: Cents;
  /** Flat rate over the whole term: 12 % = 1200. */
  rateBps: BasisPoints;
  durationMs: number;
};

export const DAY_MS = 24 * 60 * 60 * 1000;

const plan = (name: string, min: number, max: number, ratePercent: number, days: number): Plan => ({
  name,
  minAmountCents: dollars(min),
  maxAmountCents: dollars(max),
  rateBps: ratePercent * 100,
  durationMs: days * DAY_MS,
});

export const DEFAULT_PLANS: readonly Plan[] = Object.freeze([
  plan('Starter', 100, 500, 12, 1),
  plan('Bronze', 500, 1_500, 15, 3),
  plan('Silver', 2_000, 5_000, 18, 5),
  plan('Gold', 5_000, 10_000, 20, 7),
  plan('Diamond', 10_000, 50_000, 23, 9),
  plan('Platinum', 50_000, 100_000, 27, 11),
]);

/** The plan with this name (trimmed, case-insensitive), if any. */
export function findPlan(plans: readonly Plan[], name: string): Plan | undefined {
  const wanted = name.trim().toLowerCase();
  return plans.find((p) => p.name.toLowerCase() === wanted);
}

/** "$100 to $500" */
export const planRangeText = (p: Plan) =>
  `${formatCentsShort(p.minAmountCents)} to ${formatCentsShort(p.maxAmountCents)}`;

export const isWithinPlan = (p: Plan, amountCents: Cents) =>
  amountCents >= p.minAmountCents && amountCents <= p.maxAmountCents;

const PLAN_KEYS = new Set(['name', 'minAmount', 'maxAmount', 'ratePercent', 'durationMs']);
const MAX_RATE_BPS = 100_000; // 1000 %: anything above is a typo
const MAX_NAME_LENGTH = 50;

function field<T>(where: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw invalid(`${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Validates a parsed JSON value (or JSON text) as a list of plans. Refuses, naming the offending
 * plan and field: an empty list, unknown fields, empty or duplicate names (case-insensitive), amounts
 * that are not positive dollars with at most 2 decimals, min above max, a rate outside (0 %, 1000 %],
 * a duration that is not a positive whole number of milliseconds.
 */
export function loadPlans(input: unknown): Plan[] {
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw invalid('plans: not valid JSON');
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'plans' in value) {
    value = value.plans;
  }
  if (!Array.isArray(value) || value.length === 0) throw invalid('plans: expected a non-empty list of plans');

  const seen = new Set<string>();
  return value.map((raw, i): Plan => {
    const where = `plans[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw invalid(`${where}: expected an object`);
    const record: Record<string, unknown> = Object.fromEntries(Object.entries(raw));
    for (const key of Object.keys(record))
      if (!PLAN_KEYS.has(key)) throw invalid(`${where}: unknown field ${key}`);

    const name = typeof record.name === 'string' ? record.name.trim() : '';
    if (!name || name.length > MAX_NAME_LENGTH)
      throw invalid(`${where}.name: expected a name of 1 to ${MAX_NAME_LENGTH} characters`);
    if (seen.has(name.toLowerCase())) throw invalid(`${where}.name: duplicate plan ${name}`);
    seen.add(name.toLowerCase());

    const minAmountCents = field(`${where}.minAmount`, () => parseDollarsToCents(record.minAmount));
    const maxAmountCents = field(`${where}.maxAmount`, () => parseDollarsToCents(record.maxAmount));
    if (minAmountCents <= 0) throw invalid(`${where}.minAmount: must be greater than zero`);
    if (maxAmountCents < minAmountCents) throw invalid(`${where}.maxAmount: must not be below minAmount`);

    const rateBps = field(`${where}.ratePercent`, () => parsePercentToBasisPoints(record.ratePercent));
    if (rateBps <= 0 || rateBps > MAX_RATE_BPS)
      throw invalid(`${where}.ratePercent: must be above 0 and at most 1000`);

    const durationMs = record.durationMs;
    if (typeof durationMs !== 'number' || !Number.isSafeInteger(durationMs) || durationMs <= 0) {
      throw invalid(`${where}.durationMs: must be a positive whole number of milliseconds`);
    }
    return { name, minAmountCents, maxAmountCents, rateBps, durationMs };
  });
}
