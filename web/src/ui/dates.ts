const dateTime = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});
const dateOnly = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric' });

function toDate(value: unknown): Date | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "Mar 4, 2026, 2:05 PM"; an em dash when there is no date. */
export function formatDateTime(value: unknown): string {
  const d = toDate(value);
  return d ? dateTime.format(d) : '—';
}

export function formatDate(value: unknown): string {
  const d = toDate(value);
  return d ? dateOnly.format(d) : '—';
}

export function timeOf(value: unknown): number {
  return toDate(value)?.getTime() ?? 0;
}
