export type Tone = 'success' | 'warning' | 'danger' | 'neutral';

/** Statuses are compared case-sensitively (spec §4): 'pending' is not 'Pending'. */
export function StatusBadge({ status, tone, label }: { status: string; tone: Tone; label?: string }) {
  return (
    <span className={`badge badge--${tone} status-badge`} data-status={status}>
      <span className="status-badge__dot" aria-hidden="true" />
      {label ?? status}
    </span>
  );
}

/** Investments: only 'Active' is styled as active; a 'pending' one waits for an admin. */
export function investmentTone(status: string): Tone {
  if (status === 'Active') return 'success';
  if (status === 'pending') return 'warning';
  return 'neutral';
}

/** Deposits: Pending, Confirmed, Rejected. */
export function depositTone(status: string): Tone {
  if (status === 'Confirmed') return 'success';
  if (status === 'Pending') return 'warning';
  if (status === 'Rejected') return 'danger';
  return 'neutral';
}

/** Withdrawals: Pending, Approved, otherwise shown as rejected. */
export function withdrawalStatus(status: string): { tone: Tone; label: string } {
  if (status === 'Pending') return { tone: 'warning', label: 'Pending' };
  if (status === 'Approved') return { tone: 'success', label: 'Approved' };
  return { tone: 'danger', label: 'Rejected' };
}
