import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../app/apiClient';
import { formatCount, formatUsd } from '../../ui/format';
import { depositsApi } from '../deposits/depositsApi';
import { investmentsApi } from '../investments/investmentsApi';
import { kycApi } from '../kyc/kycApi';
import { LIVE_EVENTS, asQueueItemDecided, type QueueName } from '../live/liveEvents';
import { useLiveEvents, useResyncs } from '../live/useLiveEvents';
import { queueItemId, type QueueItem } from '../queues/queuesSlice';
import { useQueue } from '../queues/useQueue';
import { withdrawalsApi } from '../withdrawals/withdrawalsApi';
import {
  FLOW_ACTIONS,
  NO_FLOW,
  flowOfDetails,
  startOfDayIso,
  toCents,
  type FlowKind,
  type MoneyFlow,
} from './dashboardModel';

const QUEUES: Array<{ queue: QueueName; label: string; to: string }> = [
  { queue: 'deposits', label: 'Deposits waiting', to: '/admin-pending-deposit' },
  { queue: 'investments', label: 'Investments waiting', to: '/admin-pending-investment' },
  { queue: 'withdrawals', label: 'Withdrawals waiting', to: '/admin-pending-wallet' },
  { queue: 'kyc', label: 'KYC cases waiting', to: '/pending-kyc' },
];

const FLOWS: Array<{ kind: FlowKind; label: string }> = [
  { kind: 'deposits', label: 'Deposits confirmed' },
  { kind: 'withdrawals', label: 'Withdrawals approved' },
  { kind: 'investments', label: 'Investments approved' },
];

/** Every id a queue element is known by (deposits: transactionId and _id; investments: investmentId and _id). */
function idsOf(item: QueueItem): string[] {
  return [queueItemId(item), item._id, item.transactionId, item.investmentId].filter(
    (id): id is string => typeof id === 'string' && id !== '',
  );
}

interface AuditPage {
  entries: Array<{ details: string }>;
  nextCursor: string;
}

/** Today's approved amounts of one kind from the audit trail (every page), as id -> integer cents. */
async function todaysFlow(kind: FlowKind, fromIso: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor = '';
  for (let page = 0; page < 20; page++) {
    const q = new URLSearchParams({ action: FLOW_ACTIONS[kind].action, from: fromIso, limit: '500' });
    if (cursor) q.set('cursor', cursor);
    const { data } = await api.get<AuditPage>(`admin/audit?${q.toString()}`);
    for (const e of data.entries ?? []) {
      const flow = flowOfDetails(kind, e.details);
      if (flow) out.set(flow.id, flow.cents);
    }
    cursor = data.nextCursor ?? '';
    if (!cursor) break;
  }
  return out;
}

/**
 * The admin's live panel on /dashboard: the size of every queue and today's money flow. The queues come
 * from their GET lists and stay current through the queue/itemAdded and queue/itemDecided pushes (the
 * queues slice); the flow starts from today's audit trail and adds each decision pushed afterwards, with
 * the amount the pending item carried (each item counted once, by id).
 */
export function AdminPanel({ now = Date.now }: { now?: () => number }) {
  const deposits = useQueue('deposits', depositsApi.pending);
  const investments = useQueue('investments', investmentsApi.pending);
  const withdrawals = useQueue('withdrawals', withdrawalsApi.pending);
  const kyc = useQueue('kyc', kycApi.pending);
  const queues = { deposits, investments, withdrawals, kyc };
  const resyncs = useResyncs();

  const [flow, setFlow] = useState<MoneyFlow>(NO_FLOW);
  const [flowState, setFlowState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const counted = useRef(new Set<string>());
  /** The amount (cents) of every pending item seen, by `${queue}:${id}`, for the decisions pushed later. */
  const amounts = useRef(new Map<string, number>());

  for (const kind of ['deposits', 'investments', 'withdrawals'] as const)
    for (const item of queues[kind].items as unknown as QueueItem[])
      for (const id of idsOf(item)) amounts.current.set(`${kind}:${id}`, toCents(item.amount));

  const count = useCallback((kind: FlowKind, ids: string[], cents: number) => {
    const keys = ids.map((id) => `${kind}:${id}`);
    if (keys.some((k) => counted.current.has(k))) return;
    for (const k of keys) counted.current.add(k);
    setFlow((f) => ({ ...f, [kind]: f[kind] + cents }));
  }, []);

  useEffect(() => {
    let stale = false;
    const from = startOfDayIso(now());
    void Promise.all(FLOWS.map(({ kind }) => todaysFlow(kind, from).then((m) => [kind, m] as const)))
      .then((all) => {
        if (stale) return;
        for (const [kind, byId] of all) for (const [id, cents] of byId) count(kind, [id], cents);
        setFlowState('ready');
      })
      .catch(() => !stale && setFlowState('failed'));
    return () => {
      stale = true;
    };
  }, [count, now, resyncs]);

  useLiveEvents(({ event, payload }) => {
    if (event !== LIVE_EVENTS.queueItemDecided) return;
    const d = asQueueItemDecided(payload);
    if (!d || d.queue === 'kyc') return;
    const kind = d.queue;
    if (d.status !== FLOW_ACTIONS[kind].decided) return;
    const cents = amounts.current.get(`${kind}:${d.id}`);
    if (cents !== undefined) count(kind, [d.id], cents);
  });

  return (
    <div className="admin-live" aria-label="Live figures" role="group">
      <div className="dash-card">
        <h3 className="dash-card__title">Queues</h3>
        <ul className="queue-stats" aria-live="polite">
          {QUEUES.map(({ queue, label, to }) => {
            const q = queues[queue];
            const value =
              q.load === 'loading' ? '…' : q.load === 'failed' ? '—' : formatCount(q.items.length);
            return (
              <li key={queue} className="queue-stat">
                {/* named by its own text, "Deposits waiting: 1" (WCAG 2.5.3: no label other than what shows);
                    the CSS shows the figure above its label */}
                <Link to={to} className="queue-stat__link">
                  <span className="queue-stat__label">{label}</span>
                  <span className="visually-hidden">:</span>{' '}
                  <span className="queue-stat__value" data-testid={`queue-${queue}`}>
                    {value}
                  </span>
                </Link>
              </li>
            );
          })}
        </ul>
      </div>
      <div className="dash-card">
        <h3 className="dash-card__title">Today&apos;s money flow</h3>
        <dl className="flow-list" aria-live="polite">
          {FLOWS.map(({ kind, label }) => (
            <div key={kind} className="flow">
              <dt>{label}</dt>
              <dd data-testid={`flow-${kind}`}>
                {flowState === 'loading'
                  ? '…'
                  : flowState === 'failed' && flow[kind] === 0
                    ? '—'
                    : formatUsd(flow[kind] / 100)}
              </dd>
            </div>
          ))}
        </dl>
        {flowState === 'failed' ? (
          <p className="muted small">
            The earlier part of today could not be loaded; live decisions still add up.
          </p>
        ) : null}
      </div>
    </div>
  );
}
