/**
 * A step chart of money over time (uPlot, canvas) with the same figures as a table: the table is always
 * in the page for screen readers (visually hidden) and can be shown with the toggle. uPlot and its CSS
 * are imported on first render of a chart only, so they never weigh on a route that shows none.
 *
 * Amounts are integer cents; they are drawn as dollars and written with formatUsd (no float sums here).
 */
import { useEffect, useId, useRef, useState } from 'react';
import { formatDateTime } from './dates';
import { formatCount, formatUsd } from './format';
import './chart.css';

export interface ChartSeries {
  label: string;
  /** A CSS colour for the line. */
  color: string;
}

export interface ChartPoint {
  /** Epoch milliseconds. */
  at: number;
  /** One integer-cent value per series, in the order of `series`. */
  cents: number[];
}

const centsText = (cents: number) => formatUsd(cents / 100);

/** "$1.2k"-free axis labels: whole dollars with separators. */
const axisDollars = (v: number) => `$${formatCount(v)}`;

export function TimeSeriesChart({
  title,
  series,
  points,
  height = 260,
}: {
  title: string;
  series: ChartSeries[];
  points: ChartPoint[];
  height?: number;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const [showTable, setShowTable] = useState(false);
  const [drawn, setDrawn] = useState(false);
  const tableId = useId();

  useEffect(() => {
    const el = holder.current;
    // uPlot needs a canvas and matchMedia (a real browser); elsewhere the table alone carries the data.
    if (!el || points.length === 0 || typeof window.matchMedia !== 'function') return;
    let cancelled = false;
    let plot: { destroy(): void; setSize(s: { width: number; height: number }): void } | undefined;
    let observer: ResizeObserver | undefined;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')])
      .then(([{ default: UPlot }]) => {
        if (cancelled) return;
        const xs = points.map((p) => p.at / 1000);
        const ys = series.map((_, i) => points.map((p) => (p.cents[i] ?? 0) / 100));
        const width = Math.max(240, el.clientWidth);
        plot = new UPlot(
          {
            width,
            height,
            cursor: { drag: { x: false, y: false } },
            scales: { x: { time: true } },
            axes: [
              { stroke: '#5f6f82', grid: { stroke: '#eef2f7' } },
              {
                stroke: '#5f6f82',
                grid: { stroke: '#eef2f7' },
                size: 72,
                values: (_u, vals) => vals.map(axisDollars),
              },
            ],
            series: [
              // away from the cursor the legend reads the latest point
              {
                label: 'Date',
                value: (_u, v, _s, idx) => formatDateTime((idx == null ? xs[xs.length - 1]! : v) * 1000),
              },
              ...series.map((s, i) => ({
                label: s.label,
                stroke: s.color,
                width: 2,
                paths: UPlot.paths.stepped!({ align: 1 }),
                points: { show: true, size: 6 },
                value: (_u: unknown, v: number | null, _s: number, idx: number | null) =>
                  formatUsd(idx == null ? ys[i]![ys[i]!.length - 1]! : (v ?? 0)),
              })),
            ],
          },
          [xs, ...ys],
          el,
        );
        setDrawn(true);
        observer = new ResizeObserver(() => {
          plot?.setSize({ width: Math.max(240, el.clientWidth), height });
        });
        observer.observe(el);
      })
      .catch(() => setDrawn(false));
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
      setDrawn(false);
    };
  }, [points, series, height]);

  return (
    <figure className="chart" aria-labelledby={`${tableId}-title`}>
      <figcaption className="cluster cluster--spread chart__head">
        <span className="chart__title" id={`${tableId}-title`}>
          {title}
        </span>
        <button
          type="button"
          className="chart__toggle"
          aria-expanded={showTable}
          aria-controls={tableId}
          onClick={() => setShowTable((v) => !v)}
        >
          {showTable ? 'Hide the table' : 'Show as a table'}
        </button>
      </figcaption>
      {points.length === 0 ? (
        <p className="chart__empty">Nothing to draw yet.</p>
      ) : (
        <div
          ref={holder}
          className={`chart__plot ${drawn ? 'is-drawn' : ''}`}
          style={{ minHeight: height }}
          aria-hidden="true"
          data-testid="chart-plot"
        />
      )}
      <div id={tableId} className={showTable ? 'chart__table' : 'visually-hidden'}>
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((p, row) => (
              <tr key={`${p.at}-${row}`}>
                <th scope="row">{formatDateTime(p.at)}</th>
                {series.map((s, i) => (
                  <td key={s.label}>{centsText(p.cents[i] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
