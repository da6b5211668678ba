/**
 * Which live pushes a money event causes (pure), in the SPA's contract (pushContract.ts, web/src/features/live/README.md).
 * `position` is stamped later by the hub (hub.ts), so it is absent here.
 *
 *   meridian.ledger.events
 *     DepositRequested   → admins 'queue/itemAdded'   { queue: 'deposits', item }      owner 'status/changed' { kind: 'deposit', status: 'Pending' }
 *     DepositConfirmed   → admins 'queue/itemDecided' { queue: 'deposits', id, status } owner + admins 'status/changed' 'Confirmed'
 *     DepositRejected    → same with 'Rejected'
 *     BalancesChanged    → owner  'balances/changed'  { userId, balances: { balance, investmentBalance, totalMaturityAmount } }
 *   meridian.investment.events
 *     InvestmentRequested (funds held) → admins 'queue/itemAdded' { queue: 'investments', item }, owner 'status/changed' 'pending'
 *     InvestmentApproved / Rejected    → admins 'queue/itemDecided' 'Active' / 'Rejected', owner + admins 'status/changed'
 *     InvestmentMatured                → owner + admins 'status/changed' 'Ended'
 *   meridian.withdrawal.events
 *     WithdrawalRequested (funds held) → admins 'queue/itemAdded' { queue: 'withdrawals', item }, owner 'status/changed' 'Pending'
 *     WithdrawalApproved / Rejected    → admins 'queue/itemDecided', owner + admins 'status/changed'
 */
import type { StoredEvent } from '@meridian/platform/eventSourcing/types';
import { addCents, applyRateBasisPoints } from '@meridian/platform/money/money';
import { balancesJson, depositJson, investmentJson, withdrawalJson } from '../http/moneyViews.js';
import { LIVE_EVENTS } from './pushContract.js';

/** One push to a room, before the hub stamps its `position` (money and kyc pushes alike). */
export interface LivePush {
  to: 'admins' | { userId: string };
  event: string;
  payload: Record<string, unknown>;
}

type Data = Record<string, unknown>;
const str = (d: Data, k: string): string => (typeof d[k] === 'string' ? (d[k] as string) : '');
const num = (d: Data, k: string): number => {
  const v = d[k];
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return 0;
};

function statusBoth(userId: string, kind: string, id: string, status: string): LivePush[] {
  const payload = { kind, id, status };
  return [
    { to: { userId }, event: LIVE_EVENTS.statusChanged, payload },
    { to: 'admins', event: LIVE_EVENTS.statusChanged, payload },
  ];
}

const decided = (queue: string, id: string, status: string): LivePush => ({
  to: 'admins',
  event: LIVE_EVENTS.queueItemDecided,
  payload: { queue, id, status },
});

/** A request enters its queue: the admins get the item, its owner its status. */
const requested = (
  queue: string,
  kind: string,
  userId: string,
  id: string,
  status: string,
  item: unknown,
): LivePush[] => [
  { to: 'admins', event: LIVE_EVENTS.queueItemAdded, payload: { queue, item } },
  { to: { userId }, event: LIVE_EVENTS.statusChanged, payload: { kind, id, status } },
];

/** A decision on a queued request: its queue, its kind, its id's field, and the status it leaves the request in. */
const DECISIONS: Record<string, { queue: string; kind: string; idField: string; status: string }> = {
  DepositConfirmed: { queue: 'deposits', kind: 'deposit', idField: 'depositId', status: 'Confirmed' },
  DepositRejected: { queue: 'deposits', kind: 'deposit', idField: 'depositId', status: 'Rejected' },
  InvestmentApproved: { queue: 'investments', kind: 'investment', idField: 'investmentId', status: 'Active' },
  InvestmentRejected: {
    queue: 'investments',
    kind: 'investment',
    idField: 'investmentId',
    status: 'Rejected',
  },
  WithdrawalApproved: {
    queue: 'withdrawals',
    kind: 'withdrawal',
    idField: 'withdrawalId',
    status: 'Approved',
  },
  WithdrawalRejected: {
    queue: 'withdrawals',
    kind: 'withdrawal',
    idField: 'withdrawalId',
    status: 'Rejected',
  },
};

export function pushesForMoneyEvent(event: Pick<StoredEvent, 'type' | 'data'>): LivePush[] {
  const d = (event.data ?? {}) as Data;
  const userId = str(d, 'userId');
  if (!userId) return [];
  /** Who asked and how much: the same fields in each request's event. */
  const request = {
    userId,
    userName: str(d, 'userName'),
    userEmail: str(d, 'userEmail'),
    amountCents: num(d, 'amountCents'),
  };
  const decision = Object.hasOwn(DECISIONS, event.type) ? DECISIONS[event.type] : undefined;
  if (decision) {
    const id = str(d, decision.idField);
    return [
      decided(decision.queue, id, decision.status),
      ...statusBoth(userId, decision.kind, id, decision.status),
    ];
  }
  switch (event.type) {
    // ---- ledger
    case 'DepositRequested': {
      const id = str(d, 'depositId');
      const item = depositJson({
        depositId: id,
        ...request,
        status: 'Pending',
        notes: '',
        requestedAt: str(d, 'requestedAt'),
        decidedAt: '',
      });
      return requested('deposits', 'deposit', userId, id, 'Pending', item);
    }
    case 'BalancesChanged':
      return [
        {
          to: { userId },
          event: LIVE_EVENTS.balancesChanged,
          payload: {
            userId,
            balances: balancesJson({
              depositCents: num(d, 'depositCents'),
              investedCents: num(d, 'investedCents'),
              profitCents: num(d, 'profitCents'),
            }),
          },
        },
      ];
    // ---- investment
    case 'InvestmentRequested': {
      const id = str(d, 'investmentId');
      const item = investmentJson({
        investmentId: id,
        ...request,
        planName: str(d, 'planName'),
        rateBps: num(d, 'rateBps'),
        durationMs: num(d, 'durationMs'),
        status: 'pending',
        // the projection the pending list answers (the event carries the terms, not the result)
        maturityAmountCents: addCents(
          num(d, 'amountCents'),
          applyRateBasisPoints(num(d, 'amountCents'), num(d, 'rateBps')),
        ),
        startDate: '',
        endDate: '',
        requestedAt: str(d, 'requestedAt'),
        maturedAt: '',
      });
      return requested('investments', 'investment', userId, id, 'pending', item);
    }
    case 'InvestmentMatured':
      return statusBoth(userId, 'investment', str(d, 'investmentId'), 'Ended');
    // ---- withdrawal
    case 'WithdrawalRequested': {
      const id = str(d, 'withdrawalId');
      const item = withdrawalJson({
        withdrawalId: id,
        ...request,
        walletAddress: str(d, 'walletAddress'),
        network: str(d, 'network'),
        status: 'Pending',
        requestDate: str(d, 'requestDate'),
        decidedAt: '',
      });
      return requested('withdrawals', 'withdrawal', userId, id, 'Pending', item);
    }
    default:
      return [];
  }
}
