import type { FormEvent, ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Button } from '../../ui/Button';
import { Form } from '../../ui/Field';
import { OutlineIcon } from '../../ui/OutlineIcon';
import type { AuthFooter, AuthScreen } from './authScreens';
import { ProviderButtons } from './ProviderButtons';

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

/**
 * An auth screen with a form: its card and copy (`screen`), the form's error and fields, a full-width submit
 * busy while the form is sent, then `after` (inside the form) and the providers' buttons where it offers them.
 */
export function AuthFormCard({
  screen,
  subtitle = screen.subtitle,
  icon,
  state,
  onSubmit,
  after,
  children,
}: {
  screen: AuthScreen;
  subtitle?: ReactNode;
  icon?: ReactNode;
  state: { error: string; busy: boolean };
  onSubmit: (event: FormEvent) => void | Promise<void>;
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <AuthCard title={screen.title} subtitle={subtitle} icon={icon} footer={screen.footer}>
      <Form label={screen.form} error={state.error} onSubmit={onSubmit}>
        {children}
        <Button type="submit" block busy={state.busy} busyLabel={screen.busyLabel}>
          {screen.submit}
        </Button>
        {after}
      </Form>
      {screen.providers ? <ProviderButtons /> : null}
    </AuthCard>
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
