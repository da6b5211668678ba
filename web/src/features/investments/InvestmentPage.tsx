import { useParams } from 'react-router-dom';
import { formatDateTime } from '../../ui/dates';
import { formatUsd } from '../../ui/format';
import { investmentTone, StatusBadge } from '../../ui/StatusBadge';
import { personOf, serverMessage } from '../queues/lists';
import { DecisionPanel } from '../queues/DecisionPanel';
import { RecordDetailPage } from '../queues/RecordDetailPage';
import {
  INVESTMENT_DECISION_CHOICES,
  useDecideInvestmentMutation,
  useInvestmentQuery,
} from './investmentsApi';
import { investmentIdOf, maturityText, planNameOf } from './investmentTypes';

/** /investment/{investmentId}: the terms of one investment; an admin approves or rejects a pending one. */
export function InvestmentPage() {
  const { investmentId = '' } = useParams();
  const [decideInvestment] = useDecideInvestmentMutation();
  const query = useInvestmentQuery(investmentId);
  const investment = query.data;
  const failure = query.isError
    ? serverMessage(query.error) || 'Failed to fetch the investment.'
    : query.isSuccess && !investment
      ? 'Investment not found.'
      : null;
  const projected = investment?.datesProjected ? ' (projected)' : '';

  return (
    <RecordDetailPage
      eyebrow="Investments"
      title="Investment detail"
      back={{ to: '/invest-status', label: 'All investments' }}
      loadingLabel="Loading investment…"
      failure={failure}
      record={investment}
    >
      {(investment) => (
        <DecisionPanel
          kind="investment"
          id={investmentId}
          eyebrow={`${planNameOf(investment) || 'Investment'} plan`}
          amount={formatUsd(investment.amount)}
          status={<StatusBadge status={investment.status} tone={investmentTone(investment.status)} />}
          detailsLabel="Investment"
          details={[
            {
              term: 'Investment ID',
              value: <span className="break-all">{investmentIdOf(investment) || investmentId}</span>,
            },
            { term: 'Profit at maturity', value: maturityText(investment) },
            {
              term: 'Start date',
              value: investment.startDate
                ? `${formatDateTime(investment.startDate)}${projected}`
                : 'Set at approval',
            },
            {
              term: 'End date',
              value: investment.endDate
                ? `${formatDateTime(investment.endDate)}${projected}`
                : 'Set at approval',
            },
            ...(investment.user
              ? [
                  { term: 'Investor', value: personOf(investment.user).name || '—' },
                  { term: 'Email', value: personOf(investment.user).email || '—' },
                ]
              : []),
          ]}
          pending={investment.status === 'pending'}
          choices={INVESTMENT_DECISION_CHOICES}
          send={(decision, id) => decideInvestment({ id, decision }).unwrap()}
          layout="section"
          adminOnly
        >
          <p className="muted">
            Approving moves the reserved amount into the investor’s Total Investment and starts the term.
          </p>
        </DecisionPanel>
      )}
    </RecordDetailPage>
  );
}
