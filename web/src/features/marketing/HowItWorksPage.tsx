import { Link } from 'react-router-dom';
import { MarketingPage } from './MarketingPage';
import { PAGES, STEPS } from './marketingCopy';

export function HowItWorksPage() {
  return (
    <MarketingPage page={PAGES.howItWorks}>
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
      <div className="cluster cluster--wide hero__actions">
        <Link to="/register" className="btn btn--primary btn--lg">
          Open an account
        </Link>
      </div>
    </MarketingPage>
  );
}
