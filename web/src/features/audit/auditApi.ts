import { api } from '../../app/apiClient';

/** One entry of GET api/admin/audit (gateway/src/http/answers.ts AuditEntry). */
export interface AuditEntry {
  id: string;
  at: string;
  adminId: string;
  adminEmail: string;
  userId: string;
  userEmail: string;
  action: string;
  service: string;
  address: string;
  impersonating: boolean;
  details: string;
}

export interface AuditFilters {
  admin: string;
  user: string;
  action: string;
  /** yyyy-mm-dd (the browser's day), inclusive */
  from: string;
  /** yyyy-mm-dd, inclusive */
  to: string;
}

export const NO_FILTERS: AuditFilters = { admin: '', user: '', action: '', from: '', to: '' };

/** The actions an admin can pick from (the event types the trail records most). */
export const AUDIT_ACTIONS = [
  'DepositConfirmed',
  'DepositRejected',
  'InvestmentApproved',
  'InvestmentRejected',
  'WithdrawalApproved',
  'WithdrawalRejected',
  'KycApproved',
  'KycRejected',
  'BalanceAdjusted',
  'RoleChanged',
  'UserDeleted',
  'ImpersonationStarted',
  'ImpersonationEnded',
  'ProfileUpdated',
  'ClaimTakenOver',
];

const dayStart = (day: string) => new Date(`${day}T00:00:00`).toISOString();
const dayAfter = (day: string) => {
  const d = new Date(`${day}T00:00:00`);
  d.setDate(d.getDate() + 1);
  return d.toISOString();
};

/** The query string of the filters (a day range in the browser's time zone as ISO instants). */
export function auditQuery(filters: AuditFilters, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  if (filters.admin.trim()) q.set('admin', filters.admin.trim());
  if (filters.user.trim()) q.set('user', filters.user.trim());
  if (filters.action) q.set('action', filters.action);
  if (filters.from) q.set('from', dayStart(filters.from));
  if (filters.to) q.set('to', dayAfter(filters.to));
  for (const [k, v] of Object.entries(extra)) if (v) q.set(k, v);
  return q.toString();
}

/** Where the browser downloads the CSV export of the same filters (a plain GET with the session cookie). */
export const auditCsvUrl = (filters: AuditFilters) =>
  `/api/admin/audit?${auditQuery(filters, { format: 'csv' })}`;

export interface SecurityEvent {
  id: string;
  at: string;
  kind: 'login' | 'new_device' | 'password_changed';
  method: string;
  address: string;
}

export async function fetchSecurityEvents(): Promise<SecurityEvent[]> {
  const { data } = await api.get<{ events: SecurityEvent[] }>('users/securityEvents');
  return data.events;
}
