import { useState } from 'react';
import { toast } from '../../ui/toast';
import { useServerApiDispatch } from '../../app/api';
import { Button } from '../../ui/Button';
import { formatDateTime } from '../../ui/dates';
import { investmentTone, StatusBadge } from '../../ui/StatusBadge';
import { MoneyQueuePage } from '../queues/MoneyQueuePage';
import { DECISION_BUTTONS, toastDecisionFailed } from '../queues/QueueParts';
import { queueItemDecided, usePendingInvestmentsInfiniteQuery } from '../queues/queueApi';
import { decideWithClaim } from '../claims/claimsApi';
import { INVESTMENT_DECISION_MESSAGES, useDecideInvestmentMutation } from './investmentsApi';
import { investmentIdOf, maturityText, planNameOf, type Investment } from './investmentTypes';
import { LinkButton } from '../../ui/ScreenParts';

export const PENDING_INVESTMENTS_MESSAGES = {
  empty: 'No pending investments found.',
  failed: 'Failed to fetch pending investments.',
} as const;

/** /admin-pending-investment: approve or reject removes the item; live queue 'investments'. */
export function PendingInvestmentsPage() {
  const dispatch = useServerApiDispatch();
  const [decideInvestment] = useDecideInvestmentMutation();
  const [busy, setBusy] = useState<{ id: string; decision: 'approve' | 'reject' } | null>(null);
  async function decide(id: string, decision: 'approve' | 'reject') {
    setBusy({ id, decision });
    try {
      // deciding from the list claims the item first: the gateway decides only with the claim
      const message = await decideWithClaim('investment', id, () =>
        decideInvestment({ id, decision }).unwrap(),
      );
      toast.success(
        message ||
          (decision === 'approve'
            ? INVESTMENT_DECISION_MESSAGES.approved
            : INVESTMENT_DECISION_MESSAGES.rejected),
      );
      dispatch(queueItemDecided('investments', id));
    } catch (e) {
      toastDecisionFailed(
        decision === 'approve'
          ? INVESTMENT_DECISION_MESSAGES.approveFailed
          : INVESTMENT_DECISION_MESSAGES.rejectFailed,
        e,
      );
    } finally {
      setBusy(null);
    }
  }

  return (
    <MoneyQueuePage<Investment>
      title="Pending Investment"
      subtitle="Investments waiting for approval. The amount is already reserved from the investor’s Deposit Balance."
      label="Pending investments"
      queue={{
        useQueue: usePendingInvestmentsInfiniteQuery,
        claim: 'investment',
        texts: { ...PENDING_INVESTMENTS_MESSAGES, loading: 'Loading pending investments…' },
        toastId: 'pending-investments',
      }}
      cardOf={(i) => ({
        id: investmentIdOf(i),
        subject: `${planNameOf(i)} investment`,
        user: i.user,
        amount: i.amount,
        initiatedBy: i.initiatedBy,
        status: <StatusBadge status={i.status} tone={investmentTone(i.status)} />,
        facts: [
          { term: 'Plan', value: planNameOf(i) || '—' },
          { term: 'At maturity', value: maturityText(i) },
          { term: 'Requested', value: formatDateTime(i.createdAt ?? i.startDate) },
        ],
      })}
      // an item another admin reviews shows who, and cannot be decided here (features/claims)
      actions={(id, claim) => (
        <>
          {DECISION_BUTTONS.map(({ decision, label, variant }) => (
            <Button
              key={decision}
              size="sm"
              variant={variant}
              onClick={() => decide(id, decision)}
              busy={busy?.id === id && busy.decision === decision}
              busyLabel="Processing..."
              disabled={busy !== null || claim !== null}
            >
              {label}
            </Button>
          ))}
          <LinkButton to={`/investment/${id}`} variant="ghost" size="sm">
            Details
          </LinkButton>
        </>
      )}
    />
  );
}
