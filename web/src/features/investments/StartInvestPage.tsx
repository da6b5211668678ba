import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card, EmptyState, PageHeader } from '../../ui/Card';
import { FormError, FormSuccess, InputField } from '../../ui/Field';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { investmentsApi, usePlansQuery } from './investmentsApi';
import { Radio } from '../../ui/ScreenParts';
import { useMoneyRequest } from '../money/MoneyForm';

export const INVEST_REDIRECT_MS = 2000;
export const INVEST_MESSAGES = {
  plansFailed: 'Failed to fetch investment plans.',
  selectPlan: 'Please select an investment plan.',
  amountRequired: 'Please enter an amount.',
  failed: 'Error processing payment',
} as const;

const whole = (n: number) => formatUsd(n).replace(/\.00$/, '');

/**
 * /start-invest: plans come from the server; the amount is free text (its bounds are checked by the
 * server). The confirmation email is sent by the server, not by this screen.
 */
export function StartInvestPage() {
  const balance = useAppSelector((s) => s.auth.user?.balance);
  const plansQuery = usePlansQuery();
  const plans = plansQuery.data ?? [];
  const plansState = plansQuery.isError ? 'failed' : plansQuery.data ? 'ready' : 'loading';
  const [planName, setPlanName] = useState('');
  const [amount, setAmount] = useState('');
  const { error, setError, done, busy, submit } = useMoneyRequest(INVEST_REDIRECT_MS);

  useEffect(() => {
    if (plansState === 'failed') toast.error(INVEST_MESSAGES.plansFailed, { toastId: 'plans-failed' });
  }, [plansState]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!planName) return setError(INVEST_MESSAGES.selectPlan);
    if (!amount.trim()) return setError(INVEST_MESSAGES.amountRequired);
    const request = { amount: amount.trim(), planName };
    await submit(request, investmentsApi.start, {
      submitted: 'Investment request submitted',
      failed: INVEST_MESSAGES.failed,
    });
  }

  const chosen = plans.find((p) => p.name === planName);

  return (
    <div className="container section">
      <PageHeader
        eyebrow="Invest"
        title="Start an investment"
        subtitle="Choose a plan, enter the amount, and we reserve it from your Deposit Balance until an administrator approves it."
      />
      <form className="form invest-form" noValidate onSubmit={onSubmit} aria-label="Start an investment">
        <Card className="money-card">
          <fieldset className="plan-picker" disabled={Boolean(done)}>
            <legend className="h4">1. Choose a plan</legend>
            {plansState === 'loading' ? <LoadingBlock label="Loading plans…" /> : null}
            {plansState === 'failed' ? (
              <EmptyState title={INVEST_MESSAGES.plansFailed}>
                <Link to="/plans">See the plan ranges</Link>
              </EmptyState>
            ) : null}
            {plansState === 'ready' && plans.length === 0 ? (
              <EmptyState title="No plans are open right now." />
            ) : null}
            <div className="plan-options">
              {plans.map((p) => (
                <label
                  key={p._id ?? p.name}
                  className={`plan-option ${planName === p.name ? 'is-selected' : ''}`}
                >
                  <Radio name="plan" value={p.name} chosen={planName} onChoose={setPlanName} />
                  <span className="plan-option__name">{p.name}</span>
                  <span className="plan-option__range">
                    {whole(p.minAmount)} – {whole(p.maxAmount)}
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
        </Card>
        <Card className="money-card">
          <h2 className="h4">2. Enter the amount</h2>
          <FormError message={error} />
          <FormSuccess message={done && `${done} Taking you to your dashboard…`} />
          <InputField
            label="Amount (USD)"
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            placeholder={chosen ? `${whole(chosen.minAmount)} – ${whole(chosen.maxAmount)}` : 'e.g. 500'}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            disabled={Boolean(done)}
            hint={
              typeof balance === 'number' ? <>Deposit Balance available: {formatUsd(balance)}</> : undefined
            }
          />
          <Button type="submit" block busy={busy} busyLabel="Submitting…" disabled={Boolean(done)}>
            Invest{chosen ? ` in ${chosen.name}` : ''}
          </Button>
          <p className="fine-print">We email you a notice of this request, and again once it is decided.</p>
        </Card>
      </form>
    </div>
  );
}
