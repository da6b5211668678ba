import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { AdminOnly } from '../../app/guards';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { PageHeader } from '../../ui/Card';
import { formatUsd } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { userRequested, verificationEmailRequested } from '../auth/authSlice';
import { AdminPanel } from './AdminPanel';
import { settleDepositMaturity } from './dashboardApi';
import { InvestorPanel } from './InvestorPanel';
import './dashboard.css';
import { TileIcon } from './DashboardIcons';
import { Ticker } from './Ticker';

const USER_TILES = [
  { to: '/deposit-payment', label: 'Deposit', icon: 'deposit', text: 'Add funds to your balance' },
  { to: '/start-invest', label: 'Invest', icon: 'invest', text: 'Start a new plan' },
  { to: '/invest-status', label: 'Investment Status', icon: 'status', text: 'Track your investments' },
  { to: '/plans', label: 'Investment Plans', icon: 'plans', text: 'Compare plan ranges' },
  { to: '/withdraw-wallet', label: 'Withdraw', icon: 'withdraw', text: 'Send profit to your wallet' },
  { to: '/referrals', label: 'Referrals', icon: 'referrals', text: 'Refer a friend, earn up to $5' },
  {
    to: '/transaction-History',
    label: 'Transaction History',
    icon: 'history',
    text: 'Every movement in one list',
  },
];

const ADMIN_TILES = [
  {
    to: '/admin-pending-wallet',
    label: 'Pending Withdrawal',
    icon: 'withdraw',
    text: 'Approve or reject requests',
  },
  {
    to: '/admin-pending-deposit',
    label: 'Pending Deposits',
    icon: 'deposit',
    text: 'Confirm declared deposits',
  },
  {
    to: '/admin-pending-investment',
    label: 'Pending Investment',
    icon: 'pending',
    text: 'Approve new investments',
  },
  { to: '/pending-kyc', label: 'Pending Kyc Verification', icon: 'kyc', text: 'Review identity documents' },
  {
    to: '/support-inbox',
    label: 'Support inbox',
    icon: 'support',
    text: 'Answer investors, send deposit addresses',
  },
  {
    to: '/admin-deposit-addresses',
    label: 'Deposit addresses',
    icon: 'deposit',
    text: 'The address book support sends from',
  },
  {
    to: '/admin/audit',
    label: 'Audit trail',
    icon: 'history',
    text: 'Every admin action, filtered and exported',
  },
];

function Tile({ to, label, icon, text }: { to: string; label: string; icon: string; text: string }) {
  return (
    // named by its label alone (the text is its description, hidden from the name so that every visible word
    // of the name is in it: WCAG 2.5.3)
    <Link to={to} className="tile" aria-describedby={`tile-${icon}-${to.replace(/\W/g, '')}`}>
      <span className="tile__icon">
        <TileIcon name={icon} />
      </span>
      <span className="tile__body">
        <span className="tile__label">{label}</span>
        <span className="tile__text" id={`tile-${icon}-${to.replace(/\W/g, '')}`} aria-hidden="true">
          {text}
        </span>
      </span>
      <span className="tile__chevron" aria-hidden="true">
        ›
      </span>
    </Link>
  );
}

export function DashboardPage() {
  const dispatch = useAppDispatch();
  const user = useAppSelector((s) => s.auth.user);
  const [resending, setResending] = useState(false);

  useEffect(() => {
    // Settle matured deposits, then refresh balances; a failure here is ignored quietly.
    void settleDepositMaturity()
      .catch(() => undefined)
      .finally(() => void dispatch(userRequested()));
  }, [dispatch]);

  if (!user) return <LoadingBlock label="Loading your dashboard…" />;

  async function resend() {
    setResending(true);
    await dispatch(verificationEmailRequested());
    setResending(false);
  }

  const balances = [
    { label: 'Deposit Balance', value: user.balance, hint: 'Available to invest' },
    { label: 'Total Investment', value: user.investmentBalance, hint: 'Currently invested' },
    { label: 'Total Profit', value: user.totalMaturityAmount, hint: 'Available to withdraw' },
  ];

  return (
    <div className="container section dashboard">
      <PageHeader
        eyebrow="Dashboard"
        title={`Welcome, ${user.name}`}
        subtitle="Here is where your money stands today."
      />

      {!user.isVerified ? (
        <div className="banner banner--warning" role="region" aria-label="Account Verification Needed">
          <div>
            <h2 className="banner__title">Account Verification Needed</h2>
            <p>
              Verify your email address to unlock deposits, investments and withdrawals. Check your inbox for
              the link.
            </p>
          </div>
          <Button variant="secondary" onClick={resend} busy={resending} busyLabel="Sending…">
            Resend Verification Link
          </Button>
        </div>
      ) : null}

      <section aria-label="Balances" className="balance-grid">
        {balances.map((b) => (
          <div key={b.label} className="balance-card">
            <p className="balance-card__label">{b.label}</p>
            <p className="balance-card__value">{formatUsd(b.value)}</p>
            <p className="balance-card__hint">{b.hint}</p>
          </div>
        ))}
      </section>

      <Ticker />

      <InvestorPanel />

      <section aria-labelledby="actions-title" className="section-block">
        <h2 id="actions-title" className="h3">
          What would you like to do?
        </h2>
        <div className="tile-grid">
          {USER_TILES.map((t) => (
            <Tile key={t.to} {...t} />
          ))}
        </div>
      </section>

      <AdminOnly>
        <section aria-labelledby="admin-title" className="section-block">
          <h2 id="admin-title" className="h3">
            Administration
          </h2>
          <AdminPanel />
          <div className="tile-grid">
            {ADMIN_TILES.map((t) => (
              <Tile key={t.to} {...t} />
            ))}
          </div>
        </section>
      </AdminOnly>
    </div>
  );
}
