import type { ReactNode } from 'react';
import { FormError, FormSuccess, UsdAmountField } from '../../ui/Field';

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
