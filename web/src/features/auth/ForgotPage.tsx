import { useState, type FormEvent } from 'react';
import { EmailField, FormSuccess } from '../../ui/Field';
import { AuthFormCard } from './AuthCard';
import { AUTH_SCREENS } from './authScreens';
import { MailIcon } from './authIcons';
import { passwordResetRequested } from './authSlice';
import { useAuthSubmit } from './useAuthSubmit';
import { validateForgot } from './validation';

export function ForgotPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState('');
  const checked = useAuthSubmit(passwordResetRequested);

  async function onSubmit(event: FormEvent) {
    await checked.send(event, validateForgot(email.trim()), email.trim(), (message) => {
      setSent(message || 'Check your inbox for a reset link.');
      setEmail('');
    });
  }

  return (
    <AuthFormCard screen={AUTH_SCREENS.forgot} icon={<MailIcon />} state={checked} onSubmit={onSubmit}>
      <FormSuccess message={sent} />
      <EmailField value={email} onValue={setEmail} />
    </AuthFormCard>
  );
}
