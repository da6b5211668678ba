import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { EmailField } from '../../ui/Field';
import { AuthFormCard } from './AuthCard';
import type { AuthScreen } from './authScreens';
import { loginCodeRequested, loginSubmitted } from './authSlice';
import { PasswordInput } from './PasswordInput';
import { providerErrorMessage } from './ProviderButtons';
import { validateLogin } from './validation';

const LOGIN_SCREEN: AuthScreen = {
  title: 'Log in to Meridian',
  subtitle: 'Welcome back. Your session is protected with device checks.',
  form: 'Login',
  submit: 'Log in',
  busyLabel: 'Logging in…',
  footer: { prompt: 'New to Meridian?', to: '/register', link: 'Create an account' },
  providers: true,
};

export function LoginPage() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [searchParams] = useSearchParams();
  // a sign-in through a provider that was refused comes back here with its reason
  const [error, setError] = useState(() => providerErrorMessage(searchParams.get('error')));
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problem = validateLogin({ email, password });
    setError(problem ?? '');
    if (problem) return;
    setBusy(true);
    const result = await dispatch(loginSubmitted({ email: email.trim(), password }));
    setBusy(false);
    if (loginSubmitted.fulfilled.match(result)) {
      navigate(from && from !== '/login' ? from : '/dashboard', { replace: true });
    } else if ((result.payload ?? '').includes('New browser')) {
      void dispatch(loginCodeRequested(email.trim()));
      navigate(`/loginWithCode/${encodeURIComponent(email.trim())}`);
    }
  }

  return (
    <AuthFormCard screen={LOGIN_SCREEN} state={{ error, busy }} onSubmit={onSubmit}>
      <EmailField value={email} onValue={setEmail} />
      <PasswordInput label="Password" name="password" value={password} onChange={setPassword} />
      <div className="form__row form__row--end">
        <Link to="/forgot" className="small-link">
          Forgot password?
        </Link>
      </div>
    </AuthFormCard>
  );
}
