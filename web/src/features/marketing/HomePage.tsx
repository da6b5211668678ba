import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { Spinner } from '../../ui/Spinner';
import { Blurbs } from './Blurbs';
import { Counter } from './Counter';

export const HOME_LOADER_MS = 2000;

const BLURBS = [
  {
    title: 'Clear plans',
    text: 'Six plans from $100 to $100,000, each with a published range. You always know what you signed up for.',
  },
  {
    title: 'Reviewed money movements',
    text: 'Every deposit, investment and withdrawal is checked by our team before it settles, and you get an email at each step.',
  },
  {
    title: 'Verified accounts',
    text: 'Email verification, identity checks and a login code for new browsers keep your account yours.',
  },
  {
    title: 'Your own wallet',
    text: 'Withdraw profit to the wallet address you choose once your request is approved.',
  },
];

const TIERS = [
  {
    amount: '$100,000',
    title: 'Invest $100,000 or more',
    points: ['0.4% advisory fee', '3.25% cash interest', 'Priority review of every request'],
  },
  {
    amount: '$500,000',
    title: 'Invest $500,000 or more',
    points: ['0.2-0.4% advisory fee', '3.75% cash interest', 'A named senior account manager'],
  },
];

const FAQ = [
  {
    q: 'How long do withdrawals take?',
    a: 'Withdrawals are reviewed by our team and typically arrive within 1-2 business days after approval. You receive an email confirmation once processed.',
  },
  {
    q: 'How do I deposit?',
    a: 'Arrange the wallet address with our support team in the chat, send the funds, then declare the USD amount on the Deposit screen. An administrator confirms it.',
  },
  {
    q: 'Why do I need to verify my identity?',
    a: 'Identity (KYC) checks protect you and every other investor. Upload the front and back of a passport, national ID or driver’s licence once.',
  },
  {
    q: 'How does the referral programme work?',
    a: 'Share your referral code. When a friend signs up with it you can earn up to $5.',
  },
  {
    q: 'Why was I asked for a login code?',
    a: 'When you log in from a browser or device we have not seen before, we email you a code to confirm it is really you.',
  },
];

function Loader() {
  return (
    <div className="page-loader" role="status" aria-label="Loading Meridian">
      <Spinner size="lg" label="Loading" />
      <p className="page-loader__name">Meridian</p>
    </div>
  );
}

export function HomePage() {
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    const timer = setTimeout(() => setLoading(false), HOME_LOADER_MS);
    return () => clearTimeout(timer);
  }, []);

  if (loading) return <Loader />;

  return (
    <div className="home">
      <section className="hero">
        <div className="container hero__inner">
          <div className="hero__copy">
            <p className="eyebrow eyebrow--light">Fixed-term investing, reviewed by people</p>
            <h1 className="hero__title">Grow your money with plans you can understand.</h1>
            <p className="hero__lead">
              Choose a plan, watch your projected profit accrue to maturity, and withdraw to your own wallet —
              with every step confirmed by our team.
            </p>
            <div className="cluster cluster--wide hero__actions">
              <Link to="/dashboard" className="btn btn--accent btn--lg">
                Dashboard
              </Link>
              <Link to="/plans" className="btn btn--outline-light btn--lg">
                See plans
              </Link>
            </div>
          </div>
          <div className="hero__panel" aria-hidden="true">
            <div className="hero-card">
              <p className="hero-card__label">Total Investment</p>
              <p className="hero-card__value">$12,500.00</p>
              <div className="hero-card__bar">
                <span style={{ width: '64%' }} />
              </div>
              <div className="hero-card__row">
                <span>Silver plan</span>
                <span className="badge badge--success">Active</span>
              </div>
              <div className="hero-card__row">
                <span>Next review</span>
                <span>1-2 business days</span>
              </div>
            </div>
          </div>
        </div>
      </section>

      <section className="section container" aria-labelledby="why-title">
        <h2 id="why-title" className="section-title">
          Why investors choose Meridian
        </h2>
        <Blurbs items={BLURBS} heading="h3" />
      </section>

      <section className="section section--tinted" aria-labelledby="tiers-title">
        <div className="container">
          <h2 id="tiers-title" className="section-title">
            Benefits that grow with you
          </h2>
          <div className="tier-grid">
            {TIERS.map((t) => (
              <article key={t.amount} className="card tier">
                <p className="tier__amount">{t.amount}</p>
                <h3 className="h4">{t.title}</h3>
                <ul className="check-list">
                  {t.points.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              </article>
            ))}
          </div>
        </div>
      </section>

      <section className="section container" aria-label="Meridian in numbers">
        <div className="counter-grid">
          <Counter to={5000000} label="Dollars invested" prefix="$" />
          <Counter to={3000000} label="Profit paid out" prefix="$" />
          <Counter to={1000000} label="Transactions reviewed" />
          <Counter to={0} label="Hidden fees" />
        </div>
      </section>

      <section className="section section--tinted" aria-labelledby="faq-title">
        <div className="container container--narrow">
          <h2 id="faq-title" className="section-title">
            Frequently asked questions
          </h2>
          <div className="faq">
            {FAQ.map((item) => (
              <details key={item.q} className="faq__item">
                <summary className="faq__q">{item.q}</summary>
                <p className="faq__a">{item.a}</p>
              </details>
            ))}
          </div>
        </div>
      </section>

      <section className="section container cta">
        <h2 className="h2">Ready when you are.</h2>
        <p className="muted">
          Open an account in two minutes. Verify your email, confirm your identity, then choose a plan.
        </p>
        <div className="cluster cluster--wide hero__actions hero__actions--center">
          <Link to="/register" className="btn btn--primary btn--lg">
            Open an account
          </Link>
          <Link to="/how-it-works" className="btn btn--secondary btn--lg">
            How it works
          </Link>
        </div>
      </section>
    </div>
  );
}
