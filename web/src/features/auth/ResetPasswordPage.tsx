import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { AuthCard, AuthForm } from './AuthCard';
import { passwordResetSubmitted } from './authSlice';
import { NewPasswordFields } from './NewPasswordFields';
import { validateReset } from './validation';
import { useCheckedSubmit } from '../../ui/ScreenParts';

export function ResetPasswordPage() {
  const { resetToken = '' } = useParams();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [password2, setPassword2] = useState('');
  const { error, busy, submit } = useCheckedSubmit();

  async function onSubmit(event: FormEvent) {
    await submit(
      event,
      validateReset({ password, password2 }),
      () => dispatch(passwordResetSubmitted({ resetToken, password })),
      (result) => {
        if (passwordResetSubmitted.fulfilled.match(result)) navigate('/login', { replace: true });
      },
    );
  }

  return (
    <AuthCard
      title="Set a new password"
      subtitle="Choose a strong password you do not use anywhere else."
      footer={{ to: '/login', link: 'Back to login' }}
    >
      <AuthForm
        label="Reset password"
        error={error}
        onSubmit={onSubmit}
        submit="Reset password"
        busy={busy}
        busyLabel="Saving…"
      >
        <NewPasswordFields
          label="New password"
          confirmLabel="Confirm new password"
          password={password}
          password2={password2}
          onPassword={setPassword}
          onPassword2={setPassword2}
        />
      </AuthForm>
    </AuthCard>
  );
}
