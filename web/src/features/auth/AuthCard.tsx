import type { ComponentProps, ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Button } from '../../ui/Button';
import { Form } from '../../ui/Field';
import { OutlineIcon } from '../../ui/OutlineIcon';

/** An auth card's closing line: an optional prompt, then its link. */
export interface AuthFooter {
  prompt?: string;
  to: string;
  link: string;
}

export function AuthCard({
  title,
  subtitle,
  icon,
  children,
  footer,
}: {
  title: string;
  subtitle?: ReactNode;
  icon?: ReactNode;
  children: ReactNode;
  footer?: AuthFooter;
}) {
  return (
    <div className="auth-page">
      <section className="card auth-card" aria-labelledby="auth-title">
        <div className="auth-card__icon" aria-hidden="true">
          {icon ?? <LockIcon />}
        </div>
        <h1 id="auth-title" className="auth-card__title">
          {title}
        </h1>
        {subtitle ? <p className="auth-card__subtitle">{subtitle}</p> : null}
        {children}
        {footer ? (
          <div className="auth-card__footer">
            <p>
              {footer.prompt ? `${footer.prompt} ` : null}
              <Link to={footer.to}>{footer.link}</Link>
            </p>
          </div>
        ) : null}
      </section>
    </div>
  );
}

/** An auth card's form: its error, its fields, a full-width submit busy with `busyLabel` while sent, then `after`. */
export function AuthForm({
  submit,
  busy,
  busyLabel,
  after,
  children,
  ...form
}: ComponentProps<typeof Form> & { submit: string; busy: boolean; busyLabel: string; after?: ReactNode }) {
  return (
    <Form {...form}>
      {children}
      <Button type="submit" block busy={busy} busyLabel={busyLabel}>
        {submit}
      </Button>
      {after}
    </Form>
  );
}

function LockIcon() {
  return (
    <OutlineIcon size={26}>
      <rect x="4.5" y="10.5" width="15" height="10" rx="2.5" />
      <path d="M8 10.5V8a4 4 0 0 1 8 0v2.5" />
      <circle cx="12" cy="15.5" r="1.4" fill="currentColor" stroke="none" />
    </OutlineIcon>
  );
}
