import { useEffect, useState } from 'react';
import { authApi } from './authApi';
import type { AuthProvider } from './authTypes';

/** Where a browser starts signing in through a provider (the gateway answers 302 to the provider). */
export const providerStartUrl = (id: string) => `/api/auth/oidc/${encodeURIComponent(id)}/start`;

/**
 * Why a sign-in through a provider ended on /login (the gateway's `?error=` reasons,
 * gateway/src/http/oidcRoutes.ts OIDC_ERRORS).
 */
const PROVIDER_ERRORS: Record<string, string> = {
  unknown_provider: 'That sign-in provider is not available. Please log in another way.',
  invalid_state: 'That sign-in attempt expired or was already used. Please try again.',
  provider_refused: 'The sign-in was cancelled or refused at the provider.',
  code_refused: 'The provider did not accept this sign-in (it may have been used already). Please try again.',
  invalid_token: "The provider's answer could not be verified, so you were not signed in. Please try again.",
  email_missing: 'The provider did not share your email address, so you could not be signed in.',
  email_not_verified:
    'The provider has not verified your email address. Verify it there, or log in with your password.',
  account_suspended: 'Your account has been suspended. Please contact support',
  account_refused: 'This account cannot sign in. Please contact support',
  too_many_requests: 'Too many sign-in attempts. Please try again later.',
  unavailable: 'The provider could not be reached. Please try again later.',
};

/** The text /login shows for a provider sign-in's `?error=` reason ('' when there is none). */
export function providerErrorMessage(reason: string | null): string {
  if (!reason) return '';
  return PROVIDER_ERRORS[reason] ?? 'Signing in through the provider failed. Please try again.';
}

/** GET api/auth/providers once; a failure offers none (the password and code logins remain). */
export function useAuthProviders(): AuthProvider[] {
  const [providers, setProviders] = useState<AuthProvider[]>([]);
  useEffect(() => {
    let live = true;
    authApi
      .authProviders()
      .then((list) => live && setProviders(list))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return providers;
}

/** "Continue with <name>" for each configured provider; nothing when none is. */
export function ProviderButtons() {
  const providers = useAuthProviders();
  if (providers.length === 0) return null;
  return (
    <div className="auth-providers">
      <p className="auth-providers__divider">
        <span>or</span>
      </p>
      <ul className="bare-list auth-providers__list" aria-label="Sign in with another account">
        {providers.map((p) => (
          <li key={p.id}>
            {/* a full navigation: the gateway redirects the browser to the provider */}
            <a className="btn btn--secondary btn--md btn--block" href={providerStartUrl(p.id)}>
              Continue with {p.name}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
