import { useEffect, type ReactNode } from 'react';
import { Link, Navigate, Outlet, useLocation } from 'react-router-dom';
import { loginStatusChecked, selectIsAdmin } from '../features/auth/authSlice';
import { Card } from '../ui/Card';
import { LoadingBlock } from '../ui/Spinner';
import { useAppDispatch, useAppSelector } from './hooks';

function useSessionKnown() {
  return useAppSelector((s) => s.auth.sessionStatus === 'checked');
}

/**
 * Logged-in only. Re-checks the login status on every navigation (the spec's login-status helper):
 * a session ended by the server (suspension, logout elsewhere) lands on /login at the next step.
 */
export function RequireAuth({ redirectTo = '/login' }: { redirectTo?: string }) {
  const dispatch = useAppDispatch();
  const location = useLocation();
  const known = useSessionKnown();
  const isLoggedIn = useAppSelector((s) => s.auth.isLoggedIn);

  useEffect(() => {
    if (known) void dispatch(loginStatusChecked());
  }, [dispatch, known, location.pathname]);

  if (!known) return <LoadingBlock label="Checking your session…" />;
  if (!isLoggedIn) return <Navigate to={redirectTo} replace state={{ from: location.pathname }} />;
  return <Outlet />;
}

/** Logged-out only (login, register): a logged-in visitor goes to the dashboard. */
export function RequireLoggedOut() {
  const known = useSessionKnown();
  const isLoggedIn = useAppSelector((s) => s.auth.isLoggedIn);
  const location = useLocation();
  if (known && isLoggedIn)
    return <Navigate to={(location.state as { from?: string } | null)?.from ?? '/dashboard'} replace />;
  return <Outlet />;
}

/** Admin-only routes (the server enforces the same). Rendered inside RequireAuth. */
export function RequireAdmin() {
  const isAdmin = useAppSelector(selectIsAdmin);
  const user = useAppSelector((s) => s.auth.user);
  if (!user) return <LoadingBlock label="Loading your account…" />;
  if (!isAdmin) {
    return (
      <div className="container section">
        <Card className="notice-card">
          <h1 className="h3">Administrators only</h1>
          <p className="muted">Your account does not have access to this page.</p>
          <Link className="btn btn--secondary btn--md" to="/dashboard">
            Back to dashboard
          </Link>
        </Card>
      </div>
    );
  }
  return <Outlet />;
}

/** Content only for logged-in admins and authors; others see nothing (spec §6). */
export function AdminAuthorOnly({ children }: { children: ReactNode }) {
  const allowed = useAppSelector(
    (s) => s.auth.isLoggedIn && (s.auth.user?.role === 'admin' || s.auth.user?.role === 'author'),
  );
  return allowed ? <>{children}</> : null;
}

export function AdminOnly({ children }: { children: ReactNode }) {
  return useAppSelector(selectIsAdmin) ? <>{children}</> : null;
}

export function ShowOnLogin({ children }: { children: ReactNode }) {
  return useAppSelector((s) => s.auth.isLoggedIn) ? <>{children}</> : null;
}

export function ShowOnLogout({ children }: { children: ReactNode }) {
  return useAppSelector((s) => s.auth.isLoggedIn) ? null : <>{children}</>;
}
