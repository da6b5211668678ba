import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { EmailField, FormError, FormSuccess } from '../../ui/Field';
import { AuthCard, MailIcon } from './AuthCard';
import { passwordResetRequested } from './authSlice';
import { validateForgot } from './validation';

export function ForgotPage() {
  const dispatch = useAppDispatch();
  const [email, setEmail] = useState('');
  const [error, setError] = useState('');
  const [sent, setSent] = useState('');
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problem = validateForgot(email.trim());
    setError(problem ?? '');
    if (problem) return;
    setBusy(true);
    const result = await dispatch(passwordResetRequested(email.trim()));
    setBusy(false);
    if (passwordResetRequested.fulfilled.match(result)) {
      setSent(result.payload || 'Check your inbox for a reset link.');
      setEmail('');
    }
  }

  return (
    <AuthCard
      title="Forgot password"
      subtitle="Enter the email you registered with and we will send you a reset link."
      icon={<MailIcon />}
      footer={
        <p>
          Remembered it? <Link to="/login">Back to login</Link>
        </p>
      }
    >
      <form className="form" noValidate onSubmit={onSubmit} aria-label="Forgot password">
        <FormError message={error} />
        <FormSuccess message={sent} />
        <EmailField value={email} onValue={setEmail} />
        <Button type="submit" block busy={busy} busyLabel="Sending…">
          Get reset email
        </Button>
      </form>
    </AuthCard>
  );
}
