import type { ReactNode } from 'react';

/** Label / value rows for a detail screen. */
export function DetailList({
  rows,
  label,
}: {
  rows: Array<{ term: string; value: ReactNode }>;
  label?: string;
}) {
  return (
    <dl className="detail-list" aria-label={label}>
      {rows.map((r) => (
        <div className="detail-list__row" key={r.term}>
          <dt>{r.term}</dt>
          <dd>{r.value}</dd>
        </div>
      ))}
    </dl>
  );
}
