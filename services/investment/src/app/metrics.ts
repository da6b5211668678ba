/**
 * The investment service's operator metrics (prom-client through the platform's helpers), read from the
 * due-date index at scrape time, so they tell the truth even when the scheduler is stuck or down:
 * - meridian_investment_maturities_overdue: investments past their end date and not settled yet (still
 *   Active, or matured with the ledger's settlement still owed);
 * - meridian_investment_maturity_oldest_overdue_seconds: how long past its end date the oldest of them is
 *   (0 when none is).
 * The alert "maturity settlement behind schedule" (infra/grafana/alerts.yml) watches the second.
 */
import { metrics } from '@meridian/platform/metrics';
import type { StoreReads } from '@meridian/platform/ports/serviceStore';
import { isDue } from '../domain/investment.js';
import { COLLECTIONS, type InvestmentDoc, activeByEndDate } from '../projections/investmentView.js';

/** Active investments read per scrape at most (the overdue count is capped there). */
const SCAN_LIMIT = 100_000;

const overdue = metrics.sampledGauge(
  'meridian_investment_maturities_overdue',
  'Investments past their end date whose maturity is not settled yet.',
  [],
);
const oldestOverdue = metrics.sampledGauge(
  'meridian_investment_maturity_oldest_overdue_seconds',
  'Seconds since the end date of the oldest investment whose maturity is not settled yet (0 when none).',
  [],
);

export async function overdueMaturities(
  reads: StoreReads,
  now: Date,
): Promise<{ count: number; oldestSeconds: number }> {
  const [active, owed] = await Promise.all([
    activeByEndDate(reads, SCAN_LIMIT),
    reads.find<InvestmentDoc>(COLLECTIONS.investments, { where: { sync: 'settle' } }),
  ]);
  const due = [...active.filter((d) => isDue(d, now)), ...owed];
  const oldest = Math.min(...due.map((d) => Date.parse(d.endDate ?? '') || now.getTime()));
  return {
    count: due.length,
    oldestSeconds: due.length ? Math.max(0, (now.getTime() - oldest) / 1000) : 0,
  };
}

/** Serves the gauges from this store; returns the function that stops serving them. */
export function serveInvestmentMetrics(reads: StoreReads, clock: () => Date): () => void {
  const stops = [
    overdue.add(async () => [{ labels: {}, value: (await overdueMaturities(reads, clock())).count }]),
    oldestOverdue.add(async () => [
      { labels: {}, value: (await overdueMaturities(reads, clock())).oldestSeconds },
    ]),
  ];
  return () => stops.forEach((stop) => stop());
}
