/** The bench's console output: aligned tables of figures. */

/** Prints rows as an aligned table (first column left-aligned, the others right-aligned). */
export function table(header: string[], rows: Array<Array<string | number>>): void {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? formatNumber(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: Array<string | number>) =>
    r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('   ');
  console.log(`  ${line(cells[0])}`);
  console.log(`  ${widths.map((w) => '-'.repeat(w)).join('   ')}`);
  for (const r of cells.slice(1)) console.log(`  ${line(r)}`);
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '–';
  return Number.isInteger(n) ? String(n) : String(+n.toFixed(3));
}
