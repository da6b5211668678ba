import type { ReactNode } from 'react';

/**
 * A decorative 24-unit outline icon in the text colour: its shapes inherit a 1.8 stroke and no fill (a shape
 * that is filled or rounded says so itself).
 */
export function OutlineIcon({ size, children }: { size: number; children: ReactNode }) {
  return (
    <svg viewBox="0 0 24 24" width={size} height={size} fill="none" stroke="currentColor" strokeWidth="1.8">
      {children}
    </svg>
  );
}
