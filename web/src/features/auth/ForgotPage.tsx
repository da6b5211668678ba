import { useState, type FormEvent } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { EmailField, FormSuccess } from '../../ui/Field';
import { AuthFormCard } from './AuthCard';
import { AUTH_SCREENS } from './authScreens';
import { MailIcon } from './authIcons';
import { passwordResetRequested } from './authSlice';
import { validateForgot } from './validation';
import { useCheckedSubmit } from '../../ui/ScreenParts';

export function ForgotPage() {
  const dispatch = useAppDispatch();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState('');
  const checked = useCheckedSubmit();

  async function onSubmit(event: FormEvent) {
    await checked.submit(
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
    <AuthFormCard screen={AUTH_SCREENS.forgot} icon={<MailIcon />} state={checked} onSubmit={onSubmit}>
      <FormSuccess message={sent} />
      <EmailField value={email} onValue={setEmail} />
    </AuthFormCard>
  );
}
