import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { browser } from '../../app/browser';
import { useAppDispatch } from '../../app/hooks';
import { Spinner } from '../../ui/Spinner';
import { AuthCard } from './AuthCard';
import { ShieldIcon } from './authIcons';
import { verificationLinkOpened } from './authSlice';

export const VERIFY_REDIRECT_MS = 3000;

/** Opens the emailed link: PATCH verifyUser/{token}, then /upload-kyc after 3 s with a page reload. */
export function VerifyPage() {
  const { verificationToken = '' } = useParams();
  const dispatch = useAppDispatch();
  const started = useRef(false);
  const [state, setState] = useState<
    { kind: 'working' } | { kind: 'done'; message: string } | { kind: 'failed'; message: string }
  >({ kind: 'working' });

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void dispatch(verificationLinkOpened(verificationToken)).then((result) => {
      if (verificationLinkOpened.fulfilled.match(result))
        setState({ kind: 'done', message: result.payload || 'Account verified' });
      else
        setState({
          kind: 'failed',
          message: (result.payload as string | undefined) ?? 'Verification failed',
        });
    });
  }, [dispatch, verificationToken]);

  useEffect(() => {
    if (state.kind !== 'done') return;
    const timer = setTimeout(() => browser.reloadTo('/upload-kyc'), VERIFY_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [state.kind]);

  return (
    <AuthCard title="Account verification" icon={<ShieldIcon />}>
      {state.kind === 'working' ? (
        <div className="center-stack" role="status">
          <Spinner label="Verifying your account" />
          <p>Verifying your account…</p>
        </div>
      ) : null}
      {state.kind === 'done' ? (
        <div className="center-stack" role="status">
          <div className="form-success">{state.message}</div>
          <p className="muted">Next: identity verification. Taking you there in a moment…</p>
        </div>
      ) : null}
      {state.kind === 'failed' ? (
        <div className="center-stack">
          <div className="form-error" role="alert">
            {state.message}
          </div>
          <p className="muted">The link may have expired. Request a new one from your dashboard.</p>
          <Link className="btn btn--secondary btn--md" to="/dashboard">
            Go to dashboard
          </Link>
        </div>
      ) : null}
    </AuthCard>
  );
}
