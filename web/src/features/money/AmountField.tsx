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
