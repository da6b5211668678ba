import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { api } from '../../app/apiClient';
import { authApi } from '../auth/authApi';
import type { User } from '../auth/authTypes';
import { useAppSelector } from '../../app/hooks';
import { useIntentKey, withIntentKey } from '../../app/intentKey';
import { Button } from '../../ui/Button';
import { Card, PageHeader } from '../../ui/Card';
import { FormError, FormSuccess, SelectField, UsdAmountField } from '../../ui/Field';
import { formatUsd } from '../../ui/format';
import { messageFrom, serverMessage } from '../queues/lists';
import { BALANCE_MESSAGES } from './messages';

/**
 * The three balance edit screens and their calls. Spec §2 lists the screens in the order
 * /edit-balance (total profit, the wallet), /edit-user-balance (deposit balance),
 * /edit-investment-balance (investment balance); spec §7 lists the calls in the same order:
 * updateDepositBalance, editDepositBalance, editinvestmentBalance. We map them by that order:
 *   /edit-balance/{id}            -> PUT api/users/updateDepositBalance/{id}  (Total Profit, totalMaturityAmount)
 *   /edit-user-balance/{id}       -> PUT api/users/editDepositBalance/{id}    (Deposit Balance, balance)
 *   /edit-investment-balance/{id} -> PUT api/users/editinvestmentBalance/{id} (Total Investment, investmentBalance)
 * Body { operation: 'add' | 'deduct', amount: number }; answer { message }.
 */
export const BALANCE_KINDS = {
  profit: {
    path: 'users/updateDepositBalance',
    title: 'Edit total profit',
    field: 'totalMaturityAmount',
    label: 'Total Profit (wallet balance)',
  },
  deposit: {
    path: 'users/editDepositBalance',
    title: 'Edit deposit balance',
    field: 'balance',
    label: 'Deposit Balance',
  },
  investment: {
    path: 'users/editinvestmentBalance',
    title: 'Edit investment balance',
    field: 'investmentBalance',
    label: 'Total Investment',
  },
} as const;

export type BalanceKind = keyof typeof BALANCE_KINDS;

/**
 * The user the page is about: from the users list when it is loaded (the admin came from it), else (the page
 * opened by its address) asked for by id (GET users/getUsers?id=…: that user, or none).
 */
function useTargetUser(id: string): User | undefined {
  const listed = useAppSelector((s) => s.auth.users.find((u) => u._id === id));
  const [fetched, setFetched] = useState<User | undefined>(undefined);
  useEffect(() => {
    if (listed || !id) return;
    let live = true;
    authApi
      .getUserById(id)
      .then((user) => {
        if (live && user) setFetched(user);
      })
      // the page works without it: the strip then appears with the first edit's answer
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [id, listed]);
  return listed ?? fetched;
}

export function EditBalancePage({ kind }: { kind: BalanceKind }) {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const spec = BALANCE_KINDS[kind];
  const target = useTargetUser(id);
  // maker-checker: the server refuses an admin's edit of their own balances; say so before they try
  const own = useAppSelector((s) => !!id && s.auth.user?._id === id);
  const [amount, setAmount] = useState('');
  const [operation, setOperation] = useState<'add' | 'deduct'>('add');
  const [error, setError] = useState('');
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);
  // the account's balance the server answered with after the last edit (it answers every balance)
  const [after, setAfter] = useState<number | undefined>(undefined);
  // a PUT a proxy may send twice: the edit carries its intent's Idempotency-Key
  const intent = useIntentKey();

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSuccess('');
    const value = Number(amount);
    if (!amount.trim() || !Number.isFinite(value)) return setError(BALANCE_MESSAGES.amountRequired);
    setError('');
    setBusy(true);
    const path = `${spec.path}/${encodeURIComponent(id)}`;
    const body = { operation, amount: value };
    try {
      const res = await api.put(path, body, withIntentKey(intent.keyFor({ path, body })));
      intent.settle();
      const answered = (res.data as Record<string, unknown> | null)?.[spec.field];
      if (typeof answered === 'number') setAfter(answered);
      setSuccess(messageFrom(res.data) || 'Balance updated');
      setAmount('');
    } catch (e) {
      intent.settle(e);
      setError(serverMessage(e) || BALANCE_MESSAGES.failed);
    } finally {
      setBusy(false);
    }
  }

  const listed = target ? (target as unknown as Record<string, unknown>)[spec.field] : undefined;
  const current = after ?? (typeof listed === 'number' ? listed : undefined);

  return (
    <div className="container container--narrow section">
      <PageHeader
        eyebrow="Administration"
        title={spec.title}
        subtitle={`Add to or deduct from ${target ? `${target.name}’s` : 'this user’s'} ${spec.label}. Every adjustment is recorded with your name.`}
      />
      <Card className="money-card">
        {current !== undefined ? (
          <div className="cluster cluster--wide cluster--spread balance-strip" aria-label="Current balance">
            <span className="balance-strip__label">
              {target?.name ?? 'This user'} · {spec.label}
            </span>
            <span className="balance-strip__value">{formatUsd(current)}</span>
          </div>
        ) : null}
        {own ? (
          <p className="form-notice" role="note">
            {BALANCE_MESSAGES.ownBalances}
          </p>
        ) : null}
        <form className="form" noValidate onSubmit={onSubmit} aria-label={spec.title}>
          <FormError message={error} />
          <FormSuccess message={success} />
          <UsdAmountField
            required
            disabled={own}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
          <SelectField
            label="Operation"
            name="operation"
            disabled={own}
            value={operation}
            onChange={(e) => setOperation(e.target.value === 'deduct' ? 'deduct' : 'add')}
          >
            <option value="add">Add</option>
            <option value="deduct">Deduct</option>
          </SelectField>
          <div className="cluster cluster--wide form__actions">
            <Button variant="secondary" onClick={() => navigate(-1)}>
              Back
            </Button>
            <Button type="submit" busy={busy} busyLabel="Processing..." disabled={own}>
              Submit
            </Button>
          </div>
        </form>
      </Card>
    </div>
  );
}
