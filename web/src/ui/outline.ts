type End = 'round' | undefined;

/** An outlined icon shape's attributes: no fill, stroked in the text colour, `width` wide, with the given ends. */
export function outline(width: string, cap?: End, join?: End) {
  return {
    fill: 'none',
    stroke: 'currentColor',
    strokeWidth: width,
    ...(cap ? { strokeLinecap: cap } : {}),
    ...(join ? { strokeLinejoin: join } : {}),
  };
}
