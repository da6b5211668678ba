import { Link } from 'react-router-dom';
import { PageHeader } from '../../ui/Card';

const STEPS = [
  {
    title: 'Create your account',
    text: 'Register with your name, email, phone and country. Add a referral code if a friend invited you.',
  },
  {
    title: 'Verify your email',
    text: 'Open the link we email you. New browsers are confirmed with a one-time login code.',
  },
  {
    title: 'Confirm your identity',
    text: 'Upload the front and back of a passport, national ID or driver’s licence for review.',
  },
  {
    title: 'Deposit',
    text: 'Arrange the wallet address with support, send the funds and declare the USD amount. Our team confirms it.',
  },
  { title: 'Invest', text: 'Choose a plan and an amount. Your projected profit accrues until maturity.' },
  {
    title: 'Withdraw',
    text: 'Request a withdrawal to your wallet. Once approved, it is typically processed within 1-2 business days.',
  },
];

export function HowItWorksPage() {
  return (
    <div className="container section">
      <PageHeader
        eyebrow="Workflow"
        title="How it works"
        subtitle="Six steps from sign-up to your first withdrawal."
      />
      <ol className="steps">
        {STEPS.map((s, i) => (
          <li key={s.title} className="card step">
            <span className="step__number" aria-hidden="true">
              {i + 1}
            </span>
            <div>
              <h2 className="h4">{s.title}</h2>
              <p className="muted">{s.text}</p>
            </div>
          </li>
        ))}
      </ol>
      <div className="hero__actions">
        <Link to="/register" className="btn btn--primary btn--lg">
          Open an account
        </Link>
      </div>
    </div>
  );
}
