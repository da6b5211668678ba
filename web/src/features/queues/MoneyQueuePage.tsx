import type { ComponentProps, ReactNode } from 'react';
import type { HeldClaim } from '../claims/claimsSlice';
import { ClaimBadge } from '../claims/ClaimNotice';
import { MoneyQueueCard, QueuePage } from './QueueParts';
import { useAdminQueue, type AdminQueueSpec } from './useAdminQueue';

/** What a money queue's card shows of one item (MoneyQueueCard's props) and the item's id. */
export type MoneyCardOf = Omit<ComponentProps<typeof MoneyQueueCard>, 'children'> & { id: string };

/**
 * An admin queue of money requests (deposits, investments, withdrawals): the queue's screen (QueuePage) with
 * a MoneyQueueCard for each item, who reviews it when another admin does, and the screen's own `actions`.
 */
export function MoneyQueuePage<T extends object>(props: {
  title: string;
  subtitle: string;
  /** The list's accessible name. */
  label: string;
  queue: AdminQueueSpec<T>;
  cardOf(item: T): MoneyCardOf;
  /** The buttons and links of an item; `claim`: the review another admin holds on it (none: null). */
  actions(id: string, claim: HeldClaim | null): ReactNode;
}) {
  const { items, reviewedByOther, body } = useAdminQueue(props.queue);
  return (
    <QueuePage title={props.title} subtitle={props.subtitle} {...body} label={props.label}>
      {items.map((item) => {
        const { id, ...card } = props.cardOf(item);
        const claim = reviewedByOther(id);
        return (
          <MoneyQueueCard key={id} {...card}>
            <ClaimBadge claim={claim} />
            {props.actions(id, claim)}
          </MoneyQueueCard>
        );
      })}
    </QueuePage>
  );
}
