import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { EmailField, FormError, FormSuccess } from '../../ui/Field';
import { AuthCard } from './AuthCard';
import { MailIcon } from './authIcons';
import { passwordResetRequested } from './authSlice';
import { validateForgot } from './validation';
import { useCheckedSubmit } from '../../ui/ScreenParts';

export function ForgotPage() {
  const dispatch = useAppDispatch();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState('');
  const { error, busy, submit } = useCheckedSubmit();

  async function onSubmit(event: FormEvent) {
    await submit(
      event,
      validateForgot(email.trim()),
      () => dispatch(passwordResetRequested(email.trim())),
      (result) => {
        if (passwordResetRequested.fulfilled.match(result)) {
          setSent(result.payload || 'Check your inbox for a reset link.');
          setEmail('');
        }
      },
    );
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
