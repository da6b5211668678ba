import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { useIntentKey } from '../../app/intentKey';
import { FormError, FormSuccess, UsdAmountField } from '../../ui/Field';
import { toast } from '../../ui/toast';
import { serverMessage } from '../queues/lists';

/* A money request form (deposit, withdraw, invest): the hook that sends it, its amount, its steps panel. */

export interface MoneyRequestTexts {
  /** Shown when the server answers without a message of its own. */
  submitted: string;
  /** The form's error when the server gives no reason. */
  failed: string;
  /** true: the error toast says the server's reason too; false: it says `failed` only. */
  toastReason?: boolean;
}

/**
 * The request forms of the money screens (deposit, withdraw, start an investment): one request at a time under
 * its intent's Idempotency-Key, a toast and a success line when it is taken, then the dashboard after
 * `redirectMs`; a refusal shows the server's reason in the form.
 */
export function useMoneyRequest(redirectMs: number) {
  const navigate = useNavigate();
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const intent = useIntentKey();

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => navigate('/dashboard'), redirectMs);
    return () => clearTimeout(timer);
  }, [done, navigate, redirectMs]);

  async function submit<T>(
    request: T,
    send: (request: T, key: string) => Promise<string>,
    texts: MoneyRequestTexts,
  ) {
    setError('');
    setBusy(true);
    try {
      const message = await send(request, intent.keyFor(request));
      intent.settle();
      const text = message || texts.submitted;
      toast.success(text);
      setDone(text);
    } catch (e) {
      intent.settle(e);
      const text = serverMessage(e) || texts.failed;
      toast.error(texts.toastReason ? text : texts.failed);
      setError(text);
    } finally {
      setBusy(false);
    }
  }

  return { error, setError, done, busy, submit };
}

/**
 * The top of a money request form (deposit, withdraw): the refusal, the success line before the dashboard
 * opens, and the amount in USD, locked once the request is taken.
 */
export function MoneyFormAmount(props: {
  error: string;
  done: string;
  amount: string;
  onAmount: (v: string) => void;
}) {
  return (
    <>
      <FormError message={props.error} />
      <FormSuccess message={props.done && `${props.done} Taking you to your dashboard…`} />
      <UsdAmountField
        placeholder="0.00"
        value={props.amount}
        onChange={(e) => props.onAmount(e.target.value)}
        disabled={Boolean(props.done)}
      />
    </>
  );
}

/** The side panel of a money request form: its title, the steps in order, and what else to know. */
export function MoneySteps({
  title,
  steps,
  children,
}: {
  title: string;
  steps: string[];
  children: ReactNode;
}) {
  return (
    <aside className="card money-aside" aria-label={title}>
      <h2 className="h4">{title}</h2>
      <ol className="step-list">
        {steps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      {children}
    </aside>
  );
}
