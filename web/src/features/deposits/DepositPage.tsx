import { useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { Card, PageHeader } from '../../ui/Card';
import { supportApi } from '../support/supportApi';
import { networkOf, type DepositAddressPart } from '../support/supportTypes';
import { depositsApi } from './depositsApi';
import { useMountFetch } from '../../app/useMountFetch';
import { Radio } from '../../ui/ScreenParts';
import { MoneyFormAmount, MoneySteps, useMoneyRequest } from '../money/MoneyForm';

export const DEPOSIT_REDIRECT_MS = 3000;
export const DEPOSIT_MESSAGES = {
  amountRequired: 'Please enter the amount.',
  failed: 'Error processing payment',
} as const;

/** /deposit-payment: declare the USD amount sent to the wallet arranged through the support chat. */
export function DepositPage() {
  const [amount, setAmount] = useState('');
  const { error, setError, done, busy, submit } = useMoneyRequest(DEPOSIT_REDIRECT_MS);
  /** The addresses support gave in the chat, newest first; the newest is chosen until another is. */
  const [addresses, setAddresses] = useState<DepositAddressPart[]>([]);
  const [addressId, setAddressId] = useState('');

  // no conversation yet (the fetch fails): the declaration names no address
  useMountFetch(
    () => supportApi.givenAddresses(),
    (given) => {
      setAddresses(given);
      setAddressId((chosen) => chosen || (given[0]?.addressId ?? ''));
    },
  );

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!amount.trim()) {
      setError(DEPOSIT_MESSAGES.amountRequired);
      return;
    }
    const declared = { amount: amount.trim(), addressId: addressId || undefined };
    await submit(declared, (d, key) => depositsApi.create(d.amount, d.addressId, key), {
      submitted: 'Deposit request submitted',
      failed: DEPOSIT_MESSAGES.failed,
    });
  }

  return (
    <div className="container container--narrow section">
      <PageHeader
        eyebrow="Deposit"
        title="Deposit funds"
        subtitle="Declare the amount you sent. An administrator confirms it before it reaches your Deposit Balance."
      />
      <div className="money-layout">
        <Card className="money-card">
          <form className="form" noValidate onSubmit={onSubmit} aria-label="Deposit">
            <MoneyFormAmount error={error} done={done} amount={amount} onAmount={setAmount} />
            {addresses.length > 0 ? (
              <fieldset className="address-choice" disabled={Boolean(done)}>
                <legend>Sent to</legend>
                {addresses.map((a) => (
                  <label key={a.addressId}>
                    <Radio name="addressId" value={a.addressId} chosen={addressId} onChoose={setAddressId} />
                    <span>
                      <strong>{networkOf(a.network).label}</strong>
                      {a.label ? ` · ${a.label}` : ''}
                      <br />
                      <code className="break-all small">{a.address}</code>
                    </span>
                  </label>
                ))}
              </fieldset>
            ) : null}
            <Button type="submit" block busy={busy} busyLabel="Submitting…" disabled={Boolean(done)}>
              Submit deposit
            </Button>
          </form>
        </Card>
        <MoneySteps
          title="How deposits work"
          steps={[
            'Open the support chat and ask for a deposit wallet address.',
            'Send the crypto from your own wallet to that address.',
            'Declare the amount in US dollars here.',
            'Once an administrator confirms it, the amount appears in your Deposit Balance.',
          ]}
        >
          <p className="fine-print">
            Only send funds to an address given to you in the support chat. Meridian staff never ask for your
            password or wallet keys.
          </p>
        </MoneySteps>
      </div>
    </div>
  );
}
