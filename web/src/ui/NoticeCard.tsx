import type { ReactNode } from 'react';
import { Card, EmptyState } from './Card';

/** A card that stands in for a screen's content: a failure, an empty list or a prompt, with what may follow it. */
export function NoticeCard({
  title,
  children,
  footer,
}: {
  title: string;
  /** Shown inside the empty state, under its title. */
  children?: ReactNode;
  /** Shown in the card after the empty state. */
  footer?: ReactNode;
}) {
  return (
    <Card className="notice-card">
      <EmptyState title={title}>{children}</EmptyState>
      {footer}
    </Card>
  );
}
