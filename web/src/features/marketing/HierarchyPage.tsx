import { MarketingPage } from './MarketingPage';
import { BADGES, PAGES } from './marketingCopy';

export function HierarchyPage() {
  return (
    <MarketingPage page={PAGES.hierarchy}>
      <ol className="bare-list badge-grid">
        {BADGES.map((b, i) => (
          <li key={b.name} className={`card rank rank--${b.tone}`}>
            <span className="rank__medal" aria-hidden="true">
              <svg viewBox="0 0 48 48" width="56" height="56">
                <circle cx="24" cy="20" r="14" fill="currentColor" opacity="0.15" />
                <circle cx="24" cy="20" r="10" fill="none" stroke="currentColor" strokeWidth="2.5" />
                <path
                  d="M17 32l-3 11 10-5 10 5-3-11"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2.5"
                  strokeLinejoin="round"
                />
                <text x="24" y="25" textAnchor="middle" fontSize="13" fontWeight="700" fill="currentColor">
                  {i + 1}
                </text>
              </svg>
            </span>
            <h2 className="h4">{b.name}</h2>
            <p className="muted">{b.text}</p>
          </li>
        ))}
      </ol>
    </MarketingPage>
  );
}
