import { PageHeader } from '../../ui/Card';

const BADGES = [
  { name: 'Member', tone: 'member', text: 'Every verified investor starts here.' },
  { name: 'Leader', tone: 'leader', text: 'Active investors who have referred friends to Meridian.' },
  { name: 'Expert', tone: 'expert', text: 'Investors with several completed plans.' },
  { name: 'Master', tone: 'master', text: 'Our most experienced investors across the higher plans.' },
];

export function HierarchyPage() {
  return (
    <div className="container section">
      <PageHeader
        eyebrow="Hierarchy"
        title="Ranking badges"
        subtitle="Badges recognise your journey with Meridian."
      />
      <ol className="badge-grid">
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
    </div>
  );
}
