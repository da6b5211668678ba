import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { FormError } from '../../ui/Field';
import { AuthCard } from './AuthCard';
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
      footer={
        <p>
          <Link to="/login">Back to login</Link>
        </p>
      }
    >
      <form className="form" noValidate onSubmit={onSubmit} aria-label="Reset password">
        <FormError message={error} />
        <NewPasswordFields
          label="New password"
          confirmLabel="Confirm new password"
          password={password}
          password2={password2}
          onPassword={setPassword}
          onPassword2={setPassword2}
        />
        <Button type="submit" block busy={busy} busyLabel="Saving…">
          Reset password
        </Button>
      </form>
    </AuthCard>
  );
}
