import type { ReactNode } from 'react';
import { PageHeader } from '../../ui/Card';
import { LinkButton, NoticeCard } from '../../ui/ScreenParts';
import { LoadingBlock } from '../../ui/Spinner';

/**
 * A money record's detail screen (a deposit, an investment): its header with the way back, then the loading
 * state, the failure's notice, or the record (`children`, called once it has loaded).
 */
export function RecordDetailPage<T>(props: {
  eyebrow: string;
  title: string;
  subtitle?: string;
  back: { to: string; label: string };
  loadingLabel: string;
  /** What went wrong (the record is not shown), or null. */
  failure: string | null;
  record: T | null | undefined;
  children(record: T): ReactNode;
}) {
  const { failure, record } = props;
  return (
    <div className="container container--narrow section">
      <PageHeader
        eyebrow={props.eyebrow}
        title={props.title}
        {...(props.subtitle ? { subtitle: props.subtitle } : {})}
        actions={
          <LinkButton to={props.back.to} variant="secondary" size="sm">
            {props.back.label}
          </LinkButton>
        }
      />
      {!failure && !record ? <LoadingBlock label={props.loadingLabel} /> : null}
      {failure ? <NoticeCard title={failure} /> : null}
      {!failure && record ? props.children(record) : null}
    </div>
  );
}
