import { useState } from 'react';
import { errorMessage } from '../../app/errors';
import { formatDateTime } from '../../ui/dates';
import { LoadingBlock } from '../../ui/Spinner';
import { fetchSecurityEvents, type SecurityEvent } from './auditApi';
import './audit.css';
import { useMountFetch } from '../../app/useMountFetch';

const METHOD: Record<string, string> = {
  password: 'with your password',
  code: 'with an emailed code',
  google: 'with Google',
  change: 'from your profile',
  reset: 'with a reset link',
};

export function securityEventLabel(e: SecurityEvent): string {
  // oidc:<name>: a sign-in through that OpenID Connect provider
  const provider = e.method.startsWith('oidc:') ? e.method.slice('oidc:'.length) : '';
  const how = provider ? ` with ${provider}` : METHOD[e.method] ? ` ${METHOD[e.method]}` : '';
  if (e.kind === 'new_device') return `Sign-in from a new browser${how}`;
  if (e.kind === 'password_changed') return `Password changed${how}`;
  return `Sign-in${how}`;
}

/** The Security tab's list of the user's own sign-ins, new browsers and password changes. */
export function SecurityEventsList() {
  const [events, setEvents] = useState<SecurityEvent[] | null>(null);
  const [error, setError] = useState('');

  useMountFetch(fetchSecurityEvents, setEvents, (err) => setError(errorMessage(err)));

  return (
    <section className="security-events" aria-labelledby="security-events-title">
      <h2 className="h3" id="security-events-title">
        Recent security events
      </h2>
      <p className="muted">Sign-ins, new browsers and password changes on your account.</p>
      {error ? (
        // a list that could not be loaded is not a form error: said quietly, the password form stays usable
        <p className="muted">Your security events could not be loaded ({error}).</p>
      ) : events === null ? (
        <LoadingBlock label="Loading security events…" />
      ) : events.length === 0 ? (
        <p className="muted">No security events yet.</p>
      ) : (
        <ul className="security-events__list" aria-label="Security events">
          {events.map((e) => (
            <li key={e.id} className="security-events__item">
              <span className="security-events__what">{securityEventLabel(e)}</span>
              <span className="security-events__meta">
                <time dateTime={e.at}>{formatDateTime(e.at)}</time>
                {e.address ? ` · ${e.address}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
