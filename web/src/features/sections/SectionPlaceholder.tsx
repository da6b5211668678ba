import { Link } from 'react-router-dom';
import { Card, PageHeader } from '../../ui/Card';

export function SectionPlaceholder({ title, summary }: { title: string; summary: string }) {
  return (
    <div className="container section">
      <PageHeader title={title} subtitle={summary} />
      <Card className="notice-card">
        <div className="notice-card__icon" aria-hidden="true">
          <svg viewBox="0 0 24 24" width="28" height="28">
            <circle cx="12" cy="12" r="8.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
            <path
              d="M12 7.5V12l3 2"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinecap="round"
            />
          </svg>
        </div>
        <h2 className="h3">This section opens soon.</h2>
        <p className="muted">
          Your balances and account are unaffected. Everything else on your dashboard is available now.
        </p>
        <Link className="btn btn--secondary btn--md" to="/dashboard">
          Back to dashboard
        </Link>
      </Card>
    </div>
  );
}
