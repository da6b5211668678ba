import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { AuthFormCard } from './AuthCard';
import { AUTH_SCREENS } from './authScreens';
import { passwordResetSubmitted } from './authSlice';
import { NewPasswordFields } from './NewPasswordFields';
import { useAuthSubmit } from './useAuthSubmit';
import { validateReset } from './validation';

export function ResetPasswordPage() {
  const { resetToken = '' } = useParams();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [password2, setPassword2] = useState('');
  const checked = useAuthSubmit(passwordResetSubmitted);

  async function onSubmit(event: FormEvent) {
    await checked.send(event, validateReset({ password, password2 }), { resetToken, password }, () =>
      navigate('/login', { replace: true }),
    );
  }

  return (
    <AuthFormCard screen={AUTH_SCREENS.resetPassword} state={checked} onSubmit={onSubmit}>
      <NewPasswordFields
        label="New password"
        confirmLabel="Confirm new password"
        password={password}
        password2={password2}
        onPassword={setPassword}
        onPassword2={setPassword2}
      />
    </AuthFormCard>
  );
}
