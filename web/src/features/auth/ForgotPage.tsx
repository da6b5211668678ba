import { useState, type FormEvent } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { EmailField, FormSuccess } from '../../ui/Field';
import { AuthCard, AuthForm } from './AuthCard';
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
      footer={{ prompt: 'Remembered it?', to: '/login', link: 'Back to login' }}
    >
      <AuthForm
        label="Forgot password"
        error={error}
        onSubmit={onSubmit}
        submit="Get reset email"
        busy={busy}
        busyLabel="Sending…"
      >
        <FormSuccess message={sent} />
        <EmailField value={email} onValue={setEmail} />
      </AuthForm>
    </AuthCard>
  );
}
