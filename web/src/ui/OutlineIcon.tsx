import type { ReactNode } from 'react';

/**
 * A decorative outline icon in the text colour, `size` pixels square, of view box `box` (24 units unless given):
 * its shapes inherit the stroke (1.8 unless given, with round ends and joins where `round`) and no fill (a
 * shape that is filled or rounded on its own says so itself).
 */
export function OutlineIcon({
  size,
  box = '0 0 24 24',
  stroke = 1.8,
  round,
  className,
  children,
}: {
  size: number;
  box?: string;
  stroke?: number;
  round?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <svg
      className={className}
      viewBox={box}
      width={size}
      height={size}
      fill="none"
      stroke="currentColor"
      strokeWidth={stroke}
      strokeLinecap={round ? 'round' : undefined}
      strokeLinejoin={round ? 'round' : undefined}
      aria-hidden="true"
    >
      {children}
    </svg>
  );
}
