import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { AuthFormCard } from './AuthCard';
import { AUTH_SCREENS } from './authScreens';
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
  const checked = useCheckedSubmit();

  async function onSubmit(event: FormEvent) {
    await checked.submit(
      event,
      validateReset({ password, password2 }),
      () => dispatch(passwordResetSubmitted({ resetToken, password })),
      (result) => {
        if (passwordResetSubmitted.fulfilled.match(result)) navigate('/login', { replace: true });
      },
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
