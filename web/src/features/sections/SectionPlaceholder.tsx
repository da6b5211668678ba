import { Link } from 'react-router-dom';
import { Card, PageHeader } from '../../ui/Card';
import { OutlineIcon } from '../../ui/OutlineIcon';
import { SECTION_COPY } from './sectionCopy';
import type { SectionPath } from './sections';

/** The screen of a section route that has none of its own yet. */
export function SectionPlaceholder({ path }: { path: SectionPath }) {
  const { title, summary } = SECTION_COPY[path];
  return (
    <div className="container section">
      <PageHeader title={title} subtitle={summary} />
      <Card className="notice-card">
        <div className="notice-card__icon" aria-hidden="true">
          <OutlineIcon size={28}>
            <circle cx="12" cy="12" r="8.5" />
            <path d="M12 7.5V12l3 2" strokeLinecap="round" />
          </OutlineIcon>{' '}
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
