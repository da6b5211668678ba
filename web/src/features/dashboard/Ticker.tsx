import { useEffect, useState } from 'react';

export const TICKER_INTERVAL_MS = 2000;

/** Sample notices, labelled as such: they illustrate activity, they are not live trades. */
export const SAMPLE_NOTICES = [
  'An investor from Canada started a Silver plan with $2,500',
  'An investor from Germany started a Gold plan with $7,200',
  'An investor from Kenya started a Starter plan with $300',
  'An investor from Brazil started a Bronze plan with $1,000',
  'An investor from Japan started a Diamond plan with $15,000',
  'An investor from Spain started a Platinum plan with $60,000',
];

export function Ticker({ notices = SAMPLE_NOTICES }: { notices?: string[] }) {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setIndex((i) => (i + 1) % notices.length), TICKER_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [notices.length]);
  return (
    <div className="ticker" aria-label="Recent activity (sample)">
      <span className="ticker__badge">Sample activity</span>
      <p className="ticker__text" aria-live="off" key={index} data-testid="ticker-text">
        {notices[index]}
      </p>
    </div>
  );
}
