import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage } from '../../app/errors';
import { Button } from '../../ui/Button';
import { Card, PageHeader } from '../../ui/Card';
import { InputField } from '../../ui/Field';
import { formatUsd } from '../../ui/format';
import { useWithdrawableBalanceQuery, withdrawalsApi } from './withdrawalsApi';
import { MoneyFormAmount, MoneySteps, useMoneyRequest } from '../money/MoneyForm';

export const WITHDRAW_REDIRECT_MS = 3000;
export const WITHDRAW_MESSAGES = {
  required: 'Please enter the amount and your wallet address.',
  failed: 'Error requesting withdrawal',
  warning:
    'Make sure your wallet address is correct. Withdrawals cannot be reversed once they are processed.',
} as const;

/** /withdraw-wallet: request a withdrawal of Total Profit to a wallet; an admin approves it. */
export function WithdrawPage() {
  // what can be withdrawn; balances/changed pushes update it (withdrawalsApi.ts)
  const balanceQuery = useWithdrawableBalanceQuery();
  const balance = balanceQuery.data ?? null;
  const [amount, setAmount] = useState('');
  const [walletAddress, setWalletAddress] = useState('');
  const { error, setError, done, busy, submit } = useMoneyRequest(WITHDRAW_REDIRECT_MS);

  const { isError, error: balanceError } = balanceQuery;
  useEffect(() => {
    if (isError) console.error(errorMessage(balanceError)); // spec §8: the balance fetch failure is only logged
  }, [isError, balanceError]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!amount.trim() || !walletAddress.trim()) return setError(WITHDRAW_MESSAGES.required);
    const request = { amount: amount.trim(), walletAddress: walletAddress.trim() };
    await submit(request, withdrawalsApi.create, {
      submitted: 'Withdrawal request submitted',
      failed: WITHDRAW_MESSAGES.failed,
      toastReason: true,
    });
  }

  return (
    <div className="container section">
      <PageHeader
        eyebrow="Withdraw"
        title="Withdraw to your wallet"
        subtitle="Send your Total Profit to a crypto wallet you control."
      />
      <div className="money-layout">
        <Card className="money-card">
          <div className="cluster cluster--wide cluster--spread balance-strip" aria-label="Current balance">
            <span className="balance-strip__label">Current balance</span>
            <span className="balance-strip__value">{balance === null ? '—' : formatUsd(balance)}</span>
          </div>
          <form className="form" noValidate onSubmit={onSubmit} aria-label="Withdraw">
            <MoneyFormAmount error={error} done={done} amount={amount} onAmount={setAmount} />
            <InputField
              label="Wallet address"
              name="walletAddress"
              autoComplete="off"
              spellCheck={false}
              className="input--mono"
              value={walletAddress}
              onChange={(e) => setWalletAddress(e.target.value)}
              disabled={Boolean(done)}
            />
            <Button type="submit" block busy={busy} busyLabel="Submitting…" disabled={Boolean(done)}>
              Request withdrawal
            </Button>
          </form>
        </Card>
        <MoneySteps
          title="How withdrawals work"
          steps={[
            'Check your wallet address carefully.',
            'Enter the amount you want to withdraw.',
            'Submit the request.',
            'Wait for approval and an email confirmation.',
          ]}
        >
          <p className="muted">
            Your withdrawal is processed once it is approved, typically within 1-2 business days.
          </p>
          <div className="warning-box" role="note">
            <strong>Important</strong>
            <p>{WITHDRAW_MESSAGES.warning}</p>
          </div>
        </MoneySteps>
      </div>
    </div>
  );
}
