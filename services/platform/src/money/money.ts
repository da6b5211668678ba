/**
 * Money inside Meridian: integer cents in a `number`, always `Number.isSafeInteger`.
 * No floating-point arithmetic on money: dollar strings are parsed digit by digit, rates are integer
 * basis points (12 % = 1200 bps) applied with BigInt and rounded half-up to the cent.
 *
 * Pure; imports nothing but the platform's errors. Shared by the ledger, investment and withdrawal domains
 * (`@meridian/platform/money/money`). The REST API speaks dollars; everything behind it
 * speaks cents (`...Cents` fields).
 */
import { invalid } from '../eventSourcing/errors.js';

/** An amount in integer cents (minor units). A plain number, checked with `isCents`. */
export type Cents = number;

/** Rate in basis points: 1 % = 100 bps, 12 % = 1200 bps. */
export type BasisPoints = number;

export const CENTS_PER_DOLLAR = 100;
export const BASIS_POINTS_PER_UNIT = 10_000;

export const MONEY_MESSAGES = {
  invalidAmount: 'Please enter a valid amount',
  negativeAmount: 'Amount cannot be negative',
  tooManyDecimals: 'Amount can have at most 2 decimal places',
  tooLarge: 'Amount is too large',
  notPositive: 'Amount must be greater than zero',
} as const;

/** A safe integer number of cents (may be zero or negative: entries and platform balances are signed). */
export const isCents = (value: unknown): value is Cents =>
  typeof value === 'number' && Number.isSafeInteger(value);

/** A safe integer number of cents greater than zero: the only kind of amount a command may move. */
export const isPositiveCents = (value: unknown): value is Cents => isCents(value) && value > 0;

export function assertPositiveCents(
  value: unknown,
  message: string = MONEY_MESSAGES.notPositive,
): asserts value is Cents {
  if (!isPositiveCents(value)) throw invalid(message);
}

/** Whole dollars to cents, for constants and tables (`dollars(100)` = 10000). */
export function dollars(whole: number): Cents {
  const cents = whole * CENTS_PER_DOLLAR;
  if (!Number.isSafeInteger(whole) || !Number.isSafeInteger(cents))
    throw invalid(MONEY_MESSAGES.invalidAmount);
  return cents;
}

/** Adds cents, refusing a result outside the safe integer range. */
export function addCents(a: Cents, b: Cents): Cents {
  const sum = a + b;
  if (!isCents(a) || !isCents(b) || !Number.isSafeInteger(sum)) throw invalid(MONEY_MESSAGES.tooLarge);
  return sum;
}

const DECIMAL_RE = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal with at most `maxDecimals` fraction digits into an integer scaled by
 * 10^maxDecimals, without any floating-point arithmetic. Accepts a string ("1234.5", " 10 ") or a finite
 * number (converted with String(), whose shortest round-trip form is what a JSON body carried).
 * Refuses negatives, exponents ("1e3"), thousands separators, signs, currency symbols, empty text,
 * NaN/Infinity and anything else that is not plain digits.
 */
function parseScaledDecimal(input: unknown, maxDecimals: number): number {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw invalid(MONEY_MESSAGES.invalidAmount);
    text = String(input);
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    throw invalid(MONEY_MESSAGES.invalidAmount);
  }
  const match = DECIMAL_RE.exec(text);
  if (!match) throw invalid(MONEY_MESSAGES.invalidAmount);
  const [, sign, whole, fraction = ''] = match;
  if (sign === '-' && /[1-9]/.test(whole + fraction)) throw invalid(MONEY_MESSAGES.negativeAmount);
  if (fraction.length > maxDecimals) throw invalid(MONEY_MESSAGES.tooManyDecimals);
  const digits = (whole + fraction.padEnd(maxDecimals, '0')).replace(/^0+(?=\d)/, '');
  // 16 digits can exceed 2^53 - 1; refuse before Number() could round.
  if (digits.length > 16) throw invalid(MONEY_MESSAGES.tooLarge);
  const scaled = Number(digits);
  if (!Number.isSafeInteger(scaled)) throw invalid(MONEY_MESSAGES.tooLarge);
  return scaled;
}

/**
 * "1234.5" -> 123450. At most 2 decimals; no negatives, exponents or non-numbers (DomainError 'invalid'
 * with a message meant for people). Zero parses to 0: callers decide whether zero is allowed.
 */
export function parseDollarsToCents(input: unknown): Cents {
  return parseScaledDecimal(input, 2);
}

/** "12" -> 1200, "12.5" -> 1250 (a percentage with at most 2 decimals, as basis points). */
export function parsePercentToBasisPoints(input: unknown): BasisPoints {
  return parseScaledDecimal(input, 2);
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 123450 -> "$1,234.50"; -5 -> "-$0.05". */
export function formatCents(cents: Cents): string {
  if (!isCents(cents)) throw invalid(MONEY_MESSAGES.invalidAmount);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / CENTS_PER_DOLLAR);
  const fraction = abs % CENTS_PER_DOLLAR;
  return `${sign}$${groupThousands(String(whole))}.${String(fraction).padStart(2, '0')}`;
}

/**
 * Like formatCents but without ".00" for whole dollars: 10000 -> "$100", 150050 -> "$1,500.50".
 * For messages that name limits ("from $100 to $500").
 */
export function formatCentsShort(cents: Cents): string {
  const full = formatCents(cents);
  return full.endsWith('.00') ? full.slice(0, -3) : full;
}

/**
 * cents x bps / 10000, rounded half-up to the cent, in exact integer (BigInt) arithmetic.
 * applyRateBasisPoints(10000, 1200) = 1200 (12 % of $100); applyRateBasisPoints(1, 5000) = 1 (half-up).
 * Both arguments must be non-negative safe integers.
 */
export function applyRateBasisPoints(cents: Cents, bps: BasisPoints): Cents {
  if (!isCents(cents) || cents < 0) throw invalid(MONEY_MESSAGES.invalidAmount);
  if (!Number.isSafeInteger(bps) || bps < 0)
    throw invalid('Rate must be a non-negative whole number of basis points');
  const scale = BigInt(BASIS_POINTS_PER_UNIT);
  const product = BigInt(cents) * BigInt(bps);
  const rounded = (product * 2n + scale) / (scale * 2n); // floor(product / scale + 1/2)
  const result = Number(rounded);
  if (!Number.isSafeInteger(result)) throw invalid(MONEY_MESSAGES.tooLarge);
  return result;
}

/**
 * Cents as a dollar number for the REST API's JSON only (123450 -> 1234.5). The division yields the
 * nearest double, whose shortest decimal form is exact to the cent; never compute with the result.
 */
export function centsToDollars(cents: Cents): number {
  if (!isCents(cents)) throw invalid(MONEY_MESSAGES.invalidAmount);
  return cents / CENTS_PER_DOLLAR;
}
