const usd = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Amounts: a dollar sign and thousands separators (spec §9). */
export function formatUsd(amount: number | string | null | undefined): string {
  const n = typeof amount === 'number' ? amount : Number(amount ?? 0);
  const safe = Number.isFinite(n) ? n : 0;
  return `${safe < 0 ? '-' : ''}$${usd.format(Math.abs(safe))}`;
}

export function formatCount(n: number): string {
  return whole.format(n);
}

/** Names: cut to `max` characters with an ellipsis (10 in the navbar and profile, 12 on user cards). */
export function truncate(text: string | null | undefined, max: number): string {
  const t = text ?? '';
  return t.length > max ? `${t.slice(0, max)}...` : t;
}

export function initials(name: string | null | undefined): string {
  const parts = (name ?? '').trim().split(/\s+/).filter(Boolean);
  return (
    ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase() ||
    '?'
  );
}
