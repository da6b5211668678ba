import type { ReactNode } from 'react';
import { PageHeader } from '../../ui/Card';
import type { PageCopy } from './marketingCopy';

/** A marketing page under the home page: its header, then its content. */
export function MarketingPage({
  page,
  narrow,
  children,
}: {
  page: PageCopy;
  /** the narrow reading column */
  narrow?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={narrow ? 'container container--narrow section' : 'container section'}>
      <PageHeader eyebrow={page.eyebrow} title={page.title} subtitle={page.subtitle} />
      {children}
    </div>
  );
}
