import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { ProgressBar } from '../../ui/ProgressBar';
import { TimeSeriesChart, type ChartSeries } from '../../ui/TimeSeriesChart';
import { formatDate } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { fetchHistory, type HistoryItem } from '../history/history';
import { investmentsApi } from '../investments/investmentsApi';
import type { Investment } from '../investments/investmentTypes';
import { LIVE_EVENTS, asStatusChanged } from '../live/liveEvents';
import { useLiveEvents, useResyncs } from '../live/useLiveEvents';
import { activeProgress, growthSeries, GROWTH_SERIES } from './dashboardModel';
import { Facts } from '../../ui/ScreenParts';

const SERIES: ChartSeries[] = [
  { label: GROWTH_SERIES[0], color: '#13315c' },
  { label: GROWTH_SERIES[1], color: '#179a86' },
];

/** How often the progress bars move on their own. */
export const PROGRESS_TICK_MS = 60_000;

const cents = (c: number) => formatUsd(c / 100);

/**
 * The investor's part of /dashboard: each Active investment as a progress bar from its start to its
 * maturity date with its value now and the projected amount, and Total Investment and Total Profit over
 * time (chart and table), both derived from the investment and transaction history lists.
 */
export function InvestorPanel({ now = Date.now }: { now?: () => number }) {
  const [investments, setInvestments] = useState<Investment[] | null>(null);
  const [history, setHistory] = useState<HistoryItem[]>([]);
  const [failed, setFailed] = useState(false);
  const [nowMs, setNowMs] = useState(now);
  // the chart's last point is the moment of the last fetch, so it does not redraw on every tick
  const [loadedAt, setLoadedAt] = useState(nowMs);
  const resyncs = useResyncs();

  const load = useCallback(async () => {
    const [inv, hist] = await Promise.allSettled([investmentsApi.history(), fetchHistory()]);
    const t = now();
    setNowMs(t);
    setLoadedAt(t);
    if (inv.status === 'fulfilled') {
      setInvestments(inv.value);
      setFailed(false);
    } else setFailed(true);
    if (hist.status === 'fulfilled') setHistory(hist.value);
  }, [now]);

  useEffect(() => {
    void load();
  }, [load, resyncs]);

  useEffect(() => {
    const timer = setInterval(() => setNowMs(now()), PROGRESS_TICK_MS);
    return () => clearInterval(timer);
  }, [now]);

  // an investment approved, matured or a withdrawal decided while the dashboard is open: fetch again
  useLiveEvents(({ event, payload }) => {
    if (event !== LIVE_EVENTS.statusChanged) return;
    const s = asStatusChanged(payload);
    if (s && (s.kind === 'investment' || s.kind === 'withdrawal')) void load();
  });

  const progress = useMemo(() => activeProgress(investments ?? [], nowMs), [investments, nowMs]);
  const points = useMemo(
    () => growthSeries(investments ?? [], history, loadedAt),
    [investments, history, loadedAt],
  );

  return (
    <section aria-labelledby="growth-title" className="section-block dash-panel">
      <h2 id="growth-title" className="h3">
        Your investments
      </h2>
      {investments === null ? (
        <p className="muted">
          {failed ? 'Your investments could not be loaded.' : 'Loading your investments…'}
        </p>
      ) : (
        <div className="dash-growth">
          <div className="card dash-card">
            <h3 className="dash-card__title">Active investments</h3>
            {progress.length === 0 ? (
              <p className="muted">
                No active investment yet. <Link to="/start-invest">Start a new plan</Link>.
              </p>
            ) : (
              <ul className="bare-list maturity-list">
                {progress.map((p) => {
                  const label = `${p.plan} investment of ${cents(p.amountCents)} to maturity`;
                  const percent = Math.floor(p.percent);
                  return (
                    <li key={p.id || `${p.plan}-${p.startDate}`} className="maturity">
                      <div className="cluster cluster--spread maturity__head">
                        <span className="maturity__plan">{p.plan}</span>
                        <span className="maturity__amount">{cents(p.amountCents)} invested</span>
                      </div>
                      <ProgressBar
                        className="progress--slim"
                        value={percent}
                        label={label}
                        text={`${percent}%`}
                        valueText={`${percent}% of the term: worth ${cents(p.nowCents)} now, ${cents(p.maturityCents)} at maturity on ${formatDate(p.endDate)}`}
                      />
                      <Facts
                        className="maturity__facts"
                        rows={[
                          { term: 'Value now', value: cents(p.nowCents) },
                          { term: 'Projected at maturity', value: cents(p.maturityCents) },
                          { term: 'Matures', value: formatDate(p.endDate) },
                        ]}
                      />
                    </li>
                  );
                })}
              </ul>
            )}
          </div>
          <div className="card dash-card">
            <TimeSeriesChart
              title="Total Investment and Total Profit over time"
              series={SERIES}
              points={points}
            />
          </div>
        </div>
      )}
    </section>
  );
}
