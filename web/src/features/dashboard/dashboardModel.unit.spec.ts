import { describe, expect, it } from 'vitest';
import type { HistoryItem } from '../history/history';
import type { Investment } from '../investments/investmentTypes';
import { activeProgress, flowOfDetails, growthSeries, startOfDayIso, toCents } from './dashboardModel';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const investment = (over: Partial<Investment>): Investment => ({
  _id: 'i1',
  plan: 'Silver',
  status: 'Active',
  amount: 2000,
  maturityAmount: 2300,
  startDate: iso(T0),
  endDate: iso(T0 + 10 * DAY),
  ...over,
});

describe('toCents', () => {
  it('turns API dollars into integer cents without float drift', () => {
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents('1234.56')).toBe(123456);
    expect(toCents(19.99)).toBe(1999);
    expect(toCents('abc')).toBe(0);
    expect(toCents(undefined)).toBe(0);
  });
});

describe('activeProgress', () => {
  it('gives the elapsed share of the term and the value now between the amount and the maturity amount', () => {
    const [p] = activeProgress([investment({})], T0 + 4 * DAY);
    expect(p).toMatchObject({ id: 'i1', plan: 'Silver', amountCents: 200_000, maturityCents: 230_000 });
    expect(p!.percent).toBeCloseTo(40);
    expect(p!.nowCents).toBe(212_000);
  });

  it('clamps before the start and after the end, and leaves out every status but Active', () => {
    const list = [
      investment({ _id: 'a' }),
      investment({ _id: 'pending', status: 'pending' }),
      investment({ _id: 'ended', status: 'Ended' }),
      investment({ _id: 'nodates', startDate: null }),
    ];
    expect(activeProgress(list, T0 - DAY).map((p) => [p.id, p.percent, p.nowCents])).toEqual([
      ['a', 0, 200_000],
    ]);
    expect(activeProgress(list, T0 + 20 * DAY).map((p) => [p.id, p.percent, p.nowCents])).toEqual([
      ['a', 100, 230_000],
    ]);
  });

  it('sorts the one maturing first to the top', () => {
    const list = [
      investment({ _id: 'late', endDate: iso(T0 + 30 * DAY) }),
      investment({ _id: 'soon', endDate: iso(T0 + 2 * DAY) }),
    ];
    expect(activeProgress(list, T0).map((p) => p.id)).toEqual(['soon', 'late']);
  });
});

describe('growthSeries', () => {
  it('steps Total Investment and Total Profit through starts, maturities and withdrawals, in cents', () => {
    const investments = [
      investment({
        _id: 'a',
        amount: 100.1,
        maturityAmount: 112.11,
        status: 'Ended',
        endDate: iso(T0 + 3 * DAY),
      }),
      investment({ _id: 'b', amount: 200.2, startDate: iso(T0 + DAY), endDate: iso(T0 + 40 * DAY) }),
      investment({ _id: 'c', status: 'Rejected', amount: 999 }),
      investment({ _id: 'd', status: 'pending', amount: 999 }),
    ];
    const history: HistoryItem[] = [
      { type: 'Withdrawal', amount: 12.01, status: 'Approved', requestDate: iso(T0 + 5 * DAY) },
      { type: 'Withdrawal', amount: 50, status: 'Rejected', requestDate: iso(T0 + 6 * DAY) },
      { type: 'Transaction', amount: 500, status: 'Confirmed', createdAt: iso(T0 - DAY) },
    ];
    expect(growthSeries(investments, history, T0 + 7 * DAY)).toEqual([
      { at: T0, cents: [10_010, 0] },
      { at: T0 + DAY, cents: [30_030, 0] },
      { at: T0 + 3 * DAY, cents: [20_020, 11_211] },
      { at: T0 + 5 * DAY, cents: [20_020, 10_010] },
      { at: T0 + 7 * DAY, cents: [20_020, 10_010] },
    ]);
  });

  it('is empty without an approved investment or a withdrawal', () => {
    expect(growthSeries([investment({ status: 'pending' })], [], T0)).toEqual([]);
  });
});

describe('flowOfDetails', () => {
  it('reads the id and the integer cents of an audit entry', () => {
    expect(
      flowOfDetails('deposits', JSON.stringify({ depositId: 'd1', userId: 'u', amountCents: 100_050 })),
    ).toEqual({ id: 'd1', cents: 100_050 });
    expect(flowOfDetails('investments', JSON.stringify({ investmentId: 'i1', amountCents: 60_000 }))).toEqual(
      { id: 'i1', cents: 60_000 },
    );
    expect(flowOfDetails('withdrawals', JSON.stringify({ withdrawalId: 'w', amountCents: 1.5 }))).toBeNull();
    expect(flowOfDetails('deposits', 'not json')).toBeNull();
  });

  it('starts today at local midnight', () => {
    const from = new Date(startOfDayIso(Date.parse('2026-03-01T15:30:00Z')));
    expect([from.getHours(), from.getMinutes(), from.getSeconds()]).toEqual([0, 0, 0]);
  });
});
