import { Link } from 'react-router-dom';
import { Blurbs } from './Blurbs';
import { MarketingPage } from './MarketingPage';
import { PAGES, VALUES } from './marketingCopy';

export function AboutPage() {
  return (
    <MarketingPage page={PAGES.about}>
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
      <Blurbs items={VALUES} heading="h2" className="blurb-grid section-block" />
      <p className="section-block">
        <Link to="/contact">Talk to us</Link> or <Link to="/how-it-works">see how it works</Link>.
      </p>
    </MarketingPage>
  );
}
