import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

/** A router link that looks like a Button of the same variant and size. */
export function LinkButton({
  to,
  variant = 'primary',
  size = 'md',
  children,
}: {
  to: string;
  variant?: 'primary' | 'secondary' | 'ghost';
  size?: 'sm' | 'md';
  children: ReactNode;
}) {
  return (
    <Link className={`btn btn--${variant} btn--${size}`} to={to}>
      {children}
    </Link>
  );
}
