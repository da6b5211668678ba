import { api } from '../../app/apiClient';

export type StatementFormat = 'pdf' | 'json' | 'csv';

/** A period as the date inputs hold it: local calendar days, both inclusive (YYYY-MM-DD). */
export interface Period {
  from: string;
  to: string;
}

export const STATEMENT_MESSAGES = {
  badPeriod: 'Choose a start date on or before the end date.',
  missingDate: 'Choose both a start and an end date.',
  notJson: 'The file is not a JSON statement.',
} as const;

const pad = (n: number) => String(n).padStart(2, '0');
const dayOf = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** This month so far: the 1st of the current month to today (local days). */
export function thisMonth(now = new Date()): Period {
  return { from: dayOf(new Date(now.getFullYear(), now.getMonth(), 1)), to: dayOf(now) };
}

/** The message for a period the form cannot send, or '' when it is fine. */
export function periodProblem(period: Period): string {
  if (!period.from || !period.to) return STATEMENT_MESSAGES.missingDate;
  return period.from > period.to ? STATEMENT_MESSAGES.badPeriod : '';
}

/** Local midnight of a YYYY-MM-DD day. */
const midnight = (day: string) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d!);
};

/**
 * The query of GET api/users/statement: `from` is the first millisecond of the first day and `to` the last
 * millisecond of the last day (both inclusive, as the gateway reads them), ISO instants of the browser's
 * time zone, so a statement "for November" covers the investor's own November.
 */
export function statementQuery(period: Period, format: StatementFormat): string {
  const from = midnight(period.from);
  const to = midnight(period.to);
  to.setDate(to.getDate() + 1);
  to.setTime(to.getTime() - 1);
  const q = new URLSearchParams({ from: from.toISOString(), to: to.toISOString(), format });
  return `users/statement?${q.toString()}`;
}

export interface DownloadedStatement {
  blob: Blob;
  filename: string;
  format: StatementFormat;
}

const TYPES: Record<StatementFormat, string> = {
  pdf: 'application/pdf',
  json: 'application/json',
  csv: 'text/csv',
};

/** GET api/users/statement with the session's cookies (and CSRF header), the body as a Blob. */
export async function downloadStatement(
  period: Period,
  format: StatementFormat,
): Promise<DownloadedStatement> {
  const res = await api.get<unknown>(statementQuery(period, format), {
    responseType: 'blob',
    headers: { Accept: TYPES[format] },
  });
  const data = res.data;
  const blob =
    data instanceof Blob
      ? data
      : new Blob([typeof data === 'string' ? data : JSON.stringify(data, null, 2)], { type: TYPES[format] });
  // named after the local days chosen (the gateway's Content-Disposition names the UTC days of the period)
  return { blob, filename: `meridian-statement-${period.from}-${period.to}.${format}`, format };
}

/** A Blob's text (FileReader where Blob#text is missing: older engines, jsdom). */
export function blobText(blob: Blob): Promise<string> {
  if (typeof blob.text === 'function') return blob.text();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsText(blob);
  });
}

/** Hands a Blob to the browser as a file download (an object URL on a temporary link). */
export function saveBlob(blob: Blob, filename: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = filename;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // revoked after the click has been handled (Chromium reads the URL asynchronously)
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

export interface VerifyOutcome {
  intact: boolean;
  problems: string[];
  entries: number;
  head: string | null;
}

/** Runs meridian-verify (loaded on first use: its own chunk) on a statement's JSON text. */
export async function verifyStatementText(text: string): Promise<VerifyOutcome> {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return { intact: false, problems: [STATEMENT_MESSAGES.notJson], entries: 0, head: null };
  }
  const { verifyStatement } = await import('meridian-verify');
  return verifyStatement(json);
}
