import { Link } from 'react-router-dom';
import { MarketingPage } from './MarketingPage';
import { PAGES } from './marketingCopy';
import { formatRange, STATIC_PLANS } from './plans';

export function PlansPage() {
  return (
    <MarketingPage page={PAGES.plans}>
      <div className="plan-grid">
        {STATIC_PLANS.map((plan) => (
          <article
            key={plan.name}
            className={`card plan ${plan.featured ? 'plan--featured' : ''}`}
            aria-labelledby={`plan-${plan.name}`}
          >
            {plan.featured ? <span className="plan__flag">Most chosen</span> : null}
            <h2 id={`plan-${plan.name}`} className="plan__name">
              {plan.name}
            </h2>
            <p className="plan__range">{formatRange(plan.min, plan.max)}</p>
            <ul className="check-list">
              {plan.features.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
            <Link
              to="/start-invest"
              className={`btn ${plan.featured ? 'btn--primary' : 'btn--secondary'} btn--md btn--block`}
            >
              Invest in {plan.name}
            </Link>
          </article>
        ))}
      </div>
      <p className="fine-print center">
        Investing involves risk. Projected profit is shown on each investment and settles at maturity.
      </p>
    </MarketingPage>
  );
}
