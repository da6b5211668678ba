import type { ReactNode } from 'react';

/** Short term / value pairs of a card, each pair in a plain div of the list of class `className`. */
export function Facts({
  className,
  rows,
}: {
  className: string;
  rows: Array<{ term: string; value: ReactNode }>;
}) {
  return (
    <dl className={className}>
      {rows.map((r) => (
        <div key={r.term}>
          <dt>{r.term}</dt>
          <dd>{r.value}</dd>
        </div>
      ))}
    </dl>
  );
}
