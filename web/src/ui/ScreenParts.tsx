import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Button } from './Button';
import { Card, EmptyState } from './Card';

/*
 * Small pieces the lazily loaded screens share (detail lists, notices, button links, form rows, a checked
 * submit): one module, so one chunk, since the first route preloads a list naming every shared chunk.
 */

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

/** A router link that looks like a Button of the same variant and size. */
export function LinkButton({
  to,
  variant = 'primary',
  size = 'md',
  children,
}: {
  to: string;
  variant?: 'primary' | 'secondary' | 'ghost';
  size?: 'sm' | 'md';
  children: ReactNode;
}) {
  return (
    <Link className={`btn btn--${variant} btn--${size}`} to={to}>
      {children}
    </Link>
  );
}

/** The actions row at the end of a form with its submit button, busy with `busyLabel` while the form is sent. */
export function SubmitRow({
  busy,
  busyLabel,
  children,
}: {
  busy?: boolean;
  busyLabel?: string;
  children: ReactNode;
}) {
  return (
    <div className="cluster cluster--wide form__actions">
      <Button type="submit" busy={busy} busyLabel={busyLabel}>
        {children}
      </Button>
    </div>
  );
}

/** A radio input of a group whose chosen value the caller holds: checked when it is `chosen`, choosing it on change. */
export function Radio({
  name,
  value,
  chosen,
  onChoose,
}: {
  name: string;
  value: string;
  chosen: string | null;
  onChoose: (value: string) => void;
}) {
  return (
    <input
      type="radio"
      name={name}
      value={value}
      checked={chosen === value}
      onChange={() => onChoose(value)}
    />
  );
}

/** Label / value rows for a detail screen. */
export function DetailList({
  rows,
  label,
}: {
  rows: Array<{ term: string; value: ReactNode }>;
  label?: string;
}) {
  return (
    <dl className="detail-list" aria-label={label}>
      {rows.map((r) => (
        <div className="detail-list__row" key={r.term}>
          <dt>{r.term}</dt>
          <dd>{r.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Short term / value pairs of a card, each pair in a plain div of the list of class `className`. */
export function Facts({
  className,
  rows,
}: {
  className: string;
  rows: Array<{ term: string; value: ReactNode }>;
}) {
  return (
    <dl className={className}>
      {rows.map((r) => (
        <div key={r.term}>
          <dt>{r.term}</dt>
          <dd>{r.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A form's submit with its error and busy state: a problem found in the values becomes the form's error and
 * nothing is sent; otherwise `send` runs with the form busy, and `done` is given what it answered.
 */
export function useCheckedSubmit() {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit<T>(
    event: FormEvent,
    problem: string | null | undefined,
    send: () => Promise<T>,
    done?: (result: T) => void,
  ): Promise<void> {
    event.preventDefault();
    setError(problem ?? '');
    if (problem) return;
    setBusy(true);
    const result = await send();
    setBusy(false);
    done?.(result);
  }

  return { error, busy, submit };
}
