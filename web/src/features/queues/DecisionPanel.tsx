import { useState, type ReactNode } from 'react';
import { AdminOnly } from '../../app/guards';
import { useServerApiDispatch } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card } from '../../ui/Card';
import { toast } from '../../ui/toast';
import { decideWithClaim, type ClaimKind } from '../claims/claimsApi';
import { ClaimNotice } from '../claims/ClaimNotice';
import { useItemClaim } from '../claims/useClaims';
import type { QueueName } from '../live/liveEvents';
import { toastDecisionFailed } from './QueueParts';
import { queueItemDecided } from './queueApi';
import { DetailList } from '../../ui/ScreenParts';

/** One of the two decisions on an item: the first is the primary button, the second the danger one. */
export interface DecisionChoice<D extends string> {
  decision: D;
  label: string;
  /** Shown when the server's answer has no message (or always, with `ignoreServerMessage`). */
  succeeded: string;
  failed: string;
}

/** The admin queue of each kind of money record decided here (the kind is also the record's claim kind). */
const QUEUE_OF = {
  deposit: 'deposits',
  investment: 'investments',
  withdrawal: 'withdrawals',
} as const satisfies Partial<Record<ClaimKind, QueueName>>;

type DecisionKind = keyof typeof QUEUE_OF;

export interface DecisionPanelProps<D extends string> {
  /** The item's claim kind, which names its queue (QUEUE_OF); `id`: its id in the route, claim and queue. */
  kind: DecisionKind;
  id: string;
  /** The id the decision is sent for (default `id`). */
  decisionId?: string;
  /** The amount in dollars, large, beside the status badge; `eyebrow` a line above the amount. */
  amount: string;
  eyebrow?: string;
  status: ReactNode;
  detailsLabel: string;
  details: Array<{ term: string; value: ReactNode }>;
  /** The item waits for a decision: the claim notice and the two buttons show. */
  pending: boolean;
  choices: readonly [DecisionChoice<D>, DecisionChoice<D>];
  /** Sends the decision; answers the server's message. */
  send(decision: D, id: string): Promise<string>;
  /** After a decision the server accepted (update what the screen shows). */
  onDecided?(decision: D): void;
  ignoreServerMessage?: boolean;
  /**
   * 'section': claim notice, `children` and buttons in a ruled block under the details (visible to admins
   * only with `adminOnly`); 'inline': the claim notice and buttons right under the details.
   */
  layout: 'section' | 'inline';
  adminOnly?: boolean;
  /** Between the claim notice and the buttons (a notes field, what the decision does). */
  children?: ReactNode;
}

/**
 * An admin's decision on a money record (deposit, investment, withdrawal): the record's amount, status and
 * details, and while it is pending the review claim and the two decisions. A decision claims the item first
 * (features/claims), toasts the outcome and takes the item off the admin queue.
 */
export function DecisionPanel<D extends string>(props: DecisionPanelProps<D>) {
  const { kind, id, pending, choices, layout } = props;
  const queue = QUEUE_OF[kind];
  const dispatch = useServerApiDispatch();
  const [busy, setBusy] = useState<D | null>(null);
  const isAdmin = useAppSelector((s) => s.auth.user?.role === 'admin');
  // an admin opening a pending item claims it: other admins see who reviews it
  const review = useItemClaim(kind, id, isAdmin && pending);

  async function decide(choice: DecisionChoice<D>) {
    setBusy(choice.decision);
    try {
      const target = props.decisionId || id;
      const message = await decideWithClaim(kind, target, () => props.send(choice.decision, target));
      toast.success((!props.ignoreServerMessage && message) || choice.succeeded);
      props.onDecided?.(choice.decision);
      dispatch(queueItemDecided(queue, id));
    } catch (e) {
      toastDecisionFailed(choice.failed, e);
    } finally {
      setBusy(null);
    }
  }

  const buttons = (
    <div className="cluster cluster--wide decision__buttons">
      {choices.map((choice, i) => (
        <Button
          key={choice.decision}
          variant={i === 0 ? undefined : 'danger'}
          onClick={() => decide(choice)}
          busy={busy === choice.decision}
          busyLabel="Processing..."
          disabled={busy !== null || review.other !== null}
        >
          {choice.label}
        </Button>
      ))}
    </div>
  );
  const amount = <p className="detail-head__amount">{props.amount}</p>;
  const section = (
    <div className="decision">
      <ClaimNotice item={review} />
      {props.children}
      {buttons}
    </div>
  );

  return (
    <Card className="money-card">
      <div className="cluster cluster--wide cluster--spread detail-head">
        {props.eyebrow !== undefined ? (
          <div>
            <p className="eyebrow">{props.eyebrow}</p>
            {amount}
          </div>
        ) : (
          amount
        )}
        {props.status}
      </div>
      <DetailList label={props.detailsLabel} rows={props.details} />
      {pending && layout === 'section' ? props.adminOnly ? <AdminOnly>{section}</AdminOnly> : section : null}
      {pending && layout === 'inline' ? <ClaimNotice item={review} /> : null}
      {pending && layout === 'inline' ? buttons : null}
    </Card>
  );
}
