import { Link } from 'react-router-dom';
import { PageHeader } from '../../ui/Card';

const VALUES = [
  {
    title: 'Clarity',
    text: 'Every plan has a published range and every investment shows its projected profit and maturity date.',
  },
  {
    title: 'Review',
    text: 'People, not only software, confirm deposits, investments and withdrawals before they settle.',
  },
  {
    title: 'Security',
    text: 'Verified emails, identity checks, login codes for new devices and sessions that you can end at any time.',
  },
];

export function AboutPage() {
  return (
    <div className="container section">
      <PageHeader
        eyebrow="About"
        title="About Meridian"
        subtitle="We built Meridian for people who want their money to work without guessing what happens to it."
      />
      <div className="prose card">
        <p>
          Meridian offers fixed-term investment plans from $100 to $100,000. You deposit funds, choose a plan,
          and watch the projected profit accrue until maturity. When you are ready, you withdraw to a wallet
          address you control.
        </p>
        <p>
          Every money movement is reviewed by our operations team and confirmed to you by email, so there are
          no surprises on your statement.
        </p>
      </div>
      <div className="blurb-grid section-block">
        {VALUES.map((v) => (
          <article key={v.title} className="card blurb">
            <h2 className="h4">{v.title}</h2>
            <p className="muted">{v.text}</p>
          </article>
        ))}
      </div>
      <p className="section-block">
        <Link to="/contact">Talk to us</Link> or <Link to="/how-it-works">see how it works</Link>.
      </p>
    </div>
  );
}
