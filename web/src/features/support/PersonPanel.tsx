import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { Card } from '../../ui/Card';
import { formatUsd } from '../../ui/format';
import { supportApi, type PersonSummary } from './supportApi';
import type { Conversation } from './supportTypes';
import { DetailList } from '../../ui/ScreenParts';

type Summary = { kind: 'loading' } | { kind: 'failed' } | { kind: 'ready'; summary: PersonSummary };

/** A part the server could not read (null) shows as a dash. */
const usd = (value: number | undefined | null) =>
  value === undefined || value === null ? '—' : formatUsd(value);

/**
 * Beside a conversation: who the person is, their balances, KYC status and pending deposits and withdrawals,
 * each linked (GET api/support/conversations/{id}/summary). A visitor without an account has only the name
 * and email they gave.
 */
export function PersonPanel({ conversation }: { conversation: Conversation }) {
  const userId = conversation.userId ?? '';
  const [state, setState] = useState<Summary>({ kind: 'loading' });

  useEffect(() => {
    if (!userId) return;
    let live = true;
    setState({ kind: 'loading' });
    supportApi.summary(conversation._id).then(
      (summary) => live && setState({ kind: 'ready', summary }),
      () => live && setState({ kind: 'failed' }),
    );
    return () => {
      live = false;
    };
  }, [conversation._id, userId]);

  const pending =
    state.kind === 'ready'
      ? [
          ...(state.summary.pending?.deposits ?? []).map((d) => ({
            key: `d-${d.transactionId ?? d._id}`,
            label: `Deposit ${formatUsd(d.amount)}`,
            to: `/transaction/${d.transactionId ?? d._id}`,
          })),
          ...(state.summary.pending?.withdrawals ?? []).map((w) => ({
            key: `w-${w._id}`,
            label: `Withdrawal ${formatUsd(w.amount)}`,
            to: `/withdrawal/${w._id}`,
          })),
        ]
      : [];

  return (
    <Card className="inbox__side" aria-labelledby="person-title">
      <h2 className="h4" id="person-title">
        About the person
      </h2>
      <p>
        <strong>{conversation.name || 'Unknown person'}</strong>
        <br />
        <span className="muted small break-all">{conversation.email || '—'}</span>
      </p>
      {!userId ? <p className="small">A visitor without an account yet.</p> : null}
      {userId && state.kind === 'loading' ? <p className="muted small">Loading…</p> : null}
      {userId && state.kind === 'failed' ? (
        <p className="muted small">The summary could not be loaded.</p>
      ) : null}
      {userId && state.kind === 'ready' ? (
        <>
          <DetailList
            label="Balances and KYC"
            rows={[
              { term: 'Deposit Balance', value: usd(state.summary.balances?.balance) },
              { term: 'Total Investment', value: usd(state.summary.balances?.investmentBalance) },
              { term: 'Total Profit', value: usd(state.summary.balances?.totalMaturityAmount) },
              {
                term: 'KYC',
                value:
                  state.summary.kycStatus === 'Pending' ? (
                    <Link to="/pending-kyc">Pending: review</Link>
                  ) : (
                    (state.summary.kycStatus ?? '—')
                  ),
              },
            ]}
          />
          <h3 className="h4">Waiting items</h3>
          {pending.length === 0 ? (
            <p className="muted small">Nothing waiting.</p>
          ) : (
            <ul aria-label="Waiting items">
              {pending.map((p) => (
                <li key={p.key}>
                  <Link to={p.to}>{p.label}</Link>
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
    </Card>
  );
}
