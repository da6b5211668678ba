import { DomainError } from '../eventSourcing/errors.js';
import { describe, expect, it } from 'vitest';
import {
  MONEY_MESSAGES,
  addCents,
  applyRateBasisPoints,
  assertPositiveCents,
  centsToDollars,
  dollars,
  formatCents,
  formatCentsShort,
  isCents,
  isPositiveCents,
  parseDollarsToCents,
  parsePercentToBasisPoints,
} from './money.js';

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError, got a result');
}

describe('parseDollarsToCents', () => {
  it.each([
    ['0', 0],
    ['1', 100],
    ['1.5', 150],
    ['1.50', 150],
    ['0.01', 1],
    ['1234.56', 123456],
    ['  42.10 ', 4210],
    ['007', 700],
    ['1000000', 100_000_000],
    ['90071992547409.91', Number.MAX_SAFE_INTEGER],
  ])('reads %j as %d cents', (text, cents) => {
    expect(parseDollarsToCents(text)).toBe(cents);
  });

  it('reads JSON numbers through their shortest decimal form, without float arithmetic', () => {
    expect(parseDollarsToCents(10)).toBe(1000);
    expect(parseDollarsToCents(19.99)).toBe(1999); // 19.99 * 100 = 1998.9999999999998 in floats
    expect(parseDollarsToCents(1.15)).toBe(115); // 1.15 * 100 = 114.99999999999999
    expect(parseDollarsToCents(0.1)).toBe(10);
    expect(parseDollarsToCents(-0)).toBe(0);
  });

  it.each(['1.234', '0.001', '10.555'])('refuses more than 2 decimals: %j', (text) => {
    expect(refusal(() => parseDollarsToCents(text)).message).toBe(MONEY_MESSAGES.tooManyDecimals);
  });

  it('refuses a float that is not exactly two decimals (0.1 + 0.2)', () => {
    expect(refusal(() => parseDollarsToCents(0.1 + 0.2)).message).toBe(MONEY_MESSAGES.tooManyDecimals);
  });

  it.each(['-1', '-0.01', -5])('refuses negatives: %j', (value) => {
    const err = refusal(() => parseDollarsToCents(value));
    expect(err.kind).toBe('invalid');
    expect(err.message).toBe(MONEY_MESSAGES.negativeAmount);
  });

  it.each([
    '1e3',
    '1E3',
    1e21,
    1e-7,
    '',
    ' ',
    'abc',
    '12abc',
    '1,000',
    '$10',
    '+5',
    '.5',
    '5.',
    '1.2.3',
    '0x10',
    'Infinity',
    NaN,
    Infinity,
    null,
    undefined,
    true,
    {},
    [],
    '１２',
  ])('refuses %j as not a plain amount', (value) => {
    const err = refusal(() => parseDollarsToCents(value));
    expect(err.kind).toBe('invalid');
    expect([MONEY_MESSAGES.invalidAmount, MONEY_MESSAGES.tooManyDecimals]).toContain(err.message);
  });

  it('refuses amounts beyond the safe integer range of cents', () => {
    expect(refusal(() => parseDollarsToCents('90071992547409.92')).message).toBe(MONEY_MESSAGES.tooLarge);
    expect(refusal(() => parseDollarsToCents('99999999999999999999')).message).toBe(MONEY_MESSAGES.tooLarge);
  });
});

describe('parsePercentToBasisPoints', () => {
  it('reads percentages with at most 2 decimals as basis points', () => {
    expect(parsePercentToBasisPoints('12')).toBe(1200);
    expect(parsePercentToBasisPoints(12.5)).toBe(1250);
    expect(parsePercentToBasisPoints('0.01')).toBe(1);
    expect(refusal(() => parsePercentToBasisPoints('12.345')).message).toBe(MONEY_MESSAGES.tooManyDecimals);
  });
});

describe('formatCents', () => {
  it.each([
    [0, '$0.00'],
    [5, '$0.05'],
    [150, '$1.50'],
    [123450, '$1,234.50'],
    [100_000_000, '$1,000,000.00'],
    [-5, '-$0.05'],
    [-123456789, '-$1,234,567.89'],
    [Number.MAX_SAFE_INTEGER, '$90,071,992,547,409.91'],
  ])('%d -> %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it('short form drops .00 only', () => {
    expect(formatCentsShort(10_000)).toBe('$100');
    expect(formatCentsShort(150_050)).toBe('$1,500.50');
    expect(formatCentsShort(1_000_000_000)).toBe('$10,000,000');
  });

  it('refuses non-integer cents', () => {
    expect(refusal(() => formatCents(1.5)).kind).toBe('invalid');
  });
});

describe('applyRateBasisPoints', () => {
  it('applies a rate in integer arithmetic', () => {
    expect(applyRateBasisPoints(10_000, 1200)).toBe(1200); // 12 % of $100
    expect(applyRateBasisPoints(50_000, 2700)).toBe(13_500);
    expect(applyRateBasisPoints(12_345, 0)).toBe(0);
    expect(applyRateBasisPoints(0, 1200)).toBe(0);
    expect(applyRateBasisPoints(12_345, 10_000)).toBe(12_345);
  });

  it('rounds half up to the cent', () => {
    expect(applyRateBasisPoints(1, 5000)).toBe(1); // 0.5 -> 1
    expect(applyRateBasisPoints(1, 4999)).toBe(0); // 0.4999 -> 0
    expect(applyRateBasisPoints(12_345, 1500)).toBe(1852); // 1851.75 -> 1852
    expect(applyRateBasisPoints(12_341, 1500)).toBe(1851); // 1851.15 -> 1851
    expect(applyRateBasisPoints(10_050, 1200)).toBe(1206); // 1206.0
    expect(applyRateBasisPoints(333, 1500)).toBe(50); // 49.95 -> 50
    expect(applyRateBasisPoints(337, 1500)).toBe(51); // 50.55 -> 51
  });

  it('stays exact where cents x bps exceeds 2^53', () => {
    // 9e15 cents x 2300 bps = 2.07e19: a float product would lose the last digits.
    expect(applyRateBasisPoints(9_000_000_000_000_001, 2300)).toBe(2_070_000_000_000_000);
  });

  it('refuses negative or fractional inputs and unsafe results', () => {
    expect(refusal(() => applyRateBasisPoints(-1, 1200)).kind).toBe('invalid');
    expect(refusal(() => applyRateBasisPoints(1.5, 1200)).kind).toBe('invalid');
    expect(refusal(() => applyRateBasisPoints(100, 12.5)).kind).toBe('invalid');
    expect(refusal(() => applyRateBasisPoints(100, -1)).kind).toBe('invalid');
    expect(refusal(() => applyRateBasisPoints(Number.MAX_SAFE_INTEGER, 20_000)).message).toBe(
      MONEY_MESSAGES.tooLarge,
    );
  });
});

describe('cents helpers', () => {
  it('recognise safe integer cents', () => {
    expect(isCents(0)).toBe(true);
    expect(isCents(-5)).toBe(true);
    expect(isCents(1.5)).toBe(false);
    expect(isCents(Number.MAX_SAFE_INTEGER + 1)).toBe(false);
    expect(isCents('5')).toBe(false);
    expect(isPositiveCents(1)).toBe(true);
    expect(isPositiveCents(0)).toBe(false);
    expect(() => assertPositiveCents(0)).toThrow(MONEY_MESSAGES.notPositive);
    expect(() => assertPositiveCents(NaN, 'custom')).toThrow('custom');
  });

  it('dollars() and addCents() refuse what would not be exact', () => {
    expect(dollars(1_000_000)).toBe(100_000_000);
    expect(() => dollars(1.5)).toThrow(DomainError);
    expect(addCents(150, -50)).toBe(100);
    expect(() => addCents(Number.MAX_SAFE_INTEGER, 1)).toThrow(MONEY_MESSAGES.tooLarge);
  });

  it('centsToDollars gives the exact decimal for the REST API', () => {
    expect(String(centsToDollars(123_456))).toBe('1234.56');
    expect(String(centsToDollars(1999))).toBe('19.99');
    expect(centsToDollars(100)).toBe(1);
  });
});
