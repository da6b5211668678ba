import { useEffect, useState } from 'react';
import { formatCount } from '../../ui/format';

export const COUNTER_DURATION_MS = 2000;
const STEPS = 50;

/** Counts up from 0 to `to` over two seconds and then shows the exact figure. */
export function Counter({ to, label, prefix = '' }: { to: number; label: string; prefix?: string }) {
  const [value, setValue] = useState(0);
  useEffect(() => {
    if (to === 0) return;
    let step = 0;
    const timer = setInterval(() => {
      step += 1;
      setValue(step >= STEPS ? to : Math.round((to * step) / STEPS));
      if (step >= STEPS) clearInterval(timer);
    }, COUNTER_DURATION_MS / STEPS);
    return () => clearInterval(timer);
  }, [to]);
  return (
    <div className="counter">
      <span className="counter__value" data-testid={`counter-${label}`}>
        {prefix}
        {formatCount(value)}
      </span>
      <span className="counter__label">{label}</span>
    </div>
  );
}
