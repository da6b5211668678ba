import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../app/apiClient';
import { formatCount, formatUsd } from '../../ui/format';
import { LIVE_EVENTS, asQueueItemAdded, asQueueItemDecided, type QueueName } from '../live/liveEvents';
import { useLiveEvents, useResyncs } from '../live/useLiveEvents';
import { queueItemIds } from '../queues/queueItems';
import { SupportQueueStat } from '../support/SupportQueueStat';
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

/** The size of every admin queue: GET api/admin/queueStats (the services' counters, one call). */
export type QueueStats = Record<QueueName, number>;

/** How long the panel waits after the last queue push before it asks the counters again. */
export const STATS_DEBOUNCE_MS = 400;

/**
 * The admin's live panel on /dashboard: the size of every queue and today's money flow. The sizes come
 * from GET api/admin/queueStats (counters the services keep; no queue is loaded to count it), read on
 * mount and on every resync; each queue/itemAdded (+1) and queue/itemDecided (−1) push moves them at once
 * (each item once, by id) and asks the counters again, debounced, so a missed or replayed push cannot
 * leave them wrong. The flow starts from today's audit trail and adds each decision pushed afterwards:
 * with the amount the item was pushed with when it joined the queue while the panel was open, else by
 * reading today's trail again (debounced; each item counted once, by id).
 */
export function AdminPanel({ now = Date.now }: { now?: () => number }) {
  const resyncs = useResyncs();
  const [stats, setStats] = useState<QueueStats | null>(null);
  const [statsState, setStatsState] = useState<'loading' | 'ready' | 'failed'>('loading');
  /** Ids whose push already moved a count this session, by `${queue}:${kind}:${id}`. */
  const moved = useRef(new Set<string>());
  const statsTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const flowTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const live = useRef(true);

  const [flow, setFlow] = useState<MoneyFlow>(NO_FLOW);
  const [flowState, setFlowState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const counted = useRef(new Set<string>());
  /** The amount (cents) of every item pushed into a queue, by `${queue}:${id}`, for the decisions pushed later. */
  const amounts = useRef(new Map<string, number>());

  const count = useCallback((kind: FlowKind, ids: string[], cents: number) => {
    const keys = ids.map((id) => `${kind}:${id}`);
    if (keys.some((k) => counted.current.has(k))) return;
    for (const k of keys) counted.current.add(k);
    setFlow((f) => ({ ...f, [kind]: f[kind] + cents }));
  }, []);

  const loadStats = useCallback(async () => {
    try {
      const { data } = await api.get<QueueStats>('admin/queueStats');
      if (!live.current) return;
      setStats({
        deposits: data.deposits,
        investments: data.investments,
        withdrawals: data.withdrawals,
        kyc: data.kyc,
      });
      setStatsState('ready');
    } catch {
      if (live.current) setStatsState((s) => (s === 'ready' ? s : 'failed'));
    }
  }, []);

  const loadFlow = useCallback(async () => {
    const from = startOfDayIso(now());
    const all = await Promise.all(
      FLOWS.map(({ kind }) => todaysFlow(kind, from).then((m) => [kind, m] as const)),
    );
    if (!live.current) return;
    for (const [kind, byId] of all) for (const [id, cents] of byId) count(kind, [id], cents);
    setFlowState('ready');
  }, [count, now]);

  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
      clearTimeout(statsTimer.current);
      clearTimeout(flowTimer.current);
    };
  }, []);

  useEffect(() => {
    void loadStats();
    loadFlow().catch(() => live.current && setFlowState('failed'));
  }, [loadStats, loadFlow, resyncs]);

  const later = (timer: typeof statsTimer, run: () => Promise<void>) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void run().catch(() => undefined), STATS_DEBOUNCE_MS);
  };

  const move = (queue: QueueName, kind: 'added' | 'decided', ids: string[], by: number) => {
    const keys = ids.map((id) => `${queue}:${kind}:${id}`);
    if (keys.length === 0 || keys.some((k) => moved.current.has(k))) return;
    for (const k of keys) moved.current.add(k);
    setStats((s) => (s ? { ...s, [queue]: Math.max(0, s[queue] + by) } : s));
  };

  useLiveEvents(({ event, payload }) => {
    if (event === LIVE_EVENTS.queueItemAdded) {
      const added = asQueueItemAdded(payload);
      if (!added) return;
      const ids = queueItemIds(added.item);
      if (added.queue !== 'kyc')
        for (const id of ids) amounts.current.set(`${added.queue}:${id}`, toCents(added.item.amount));
      move(added.queue, 'added', ids, +1);
      later(statsTimer, loadStats);
      return;
    }
    if (event !== LIVE_EVENTS.queueItemDecided) return;
    const d = asQueueItemDecided(payload);
    if (!d) return;
    move(d.queue, 'decided', [d.id], -1);
    later(statsTimer, loadStats);
    if (d.queue === 'kyc') return;
    const kind = d.queue;
    if (d.status !== FLOW_ACTIONS[kind].decided) return;
    const cents = amounts.current.get(`${kind}:${d.id}`);
    if (cents !== undefined) count(kind, [d.id], cents);
    // an item that was waiting before the panel opened: its amount is in today's trail
    else later(flowTimer, loadFlow);
  });

  return (
    <div className="admin-live" aria-label="Live figures" role="group">
      <div className="card dash-card">
        <h3 className="dash-card__title">Queues</h3>
        <ul className="bare-list queue-stats" aria-live="polite">
          {QUEUES.map(({ queue, label, to }) => {
            const value = stats !== null ? formatCount(stats[queue]) : statsState === 'failed' ? '—' : '…';
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
          <SupportQueueStat />
        </ul>
      </div>
      <div className="card dash-card">
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
