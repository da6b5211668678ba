import { useState, type FormEvent } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { FormError } from '../../ui/Field';
import { passwordChangeSubmitted } from '../auth/authSlice';
import { NewPasswordFields } from '../auth/NewPasswordFields';
import { PasswordInput } from '../auth/PasswordInput';
import { validateChangePassword } from '../auth/validation';
import { SecurityEventsList } from '../audit/SecurityEventsList';
import { SubmitRow, useCheckedSubmit } from '../../ui/ScreenParts';

const EMPTY = { oldPassword: '', password: '', password2: '' };

export function SecurityTab() {
  const dispatch = useAppDispatch();
  const [form, setForm] = useState(EMPTY);
  const { error, busy, submit } = useCheckedSubmit();

  async function onSubmit(event: FormEvent) {
    await submit(
      event,
      validateChangePassword(form),
      () => dispatch(passwordChangeSubmitted({ oldPassword: form.oldPassword, password: form.password })),
      (result) => {
        if (passwordChangeSubmitted.fulfilled.match(result)) setForm(EMPTY);
      },
    );
  }

  return (
    <>
      <form className="form form--narrow" noValidate onSubmit={onSubmit} aria-label="Change password">
        <h2 className="h3">Change password</h2>
        <p className="muted">
          Use at least 6 characters with upper and lower case letters, a number and a special character.
        </p>
        <FormError message={error} />
        <PasswordInput
          label="Current password"
          name="oldPassword"
          value={form.oldPassword}
          onChange={(oldPassword) => setForm((f) => ({ ...f, oldPassword }))}
        />
        <NewPasswordFields
          label="New password"
          confirmLabel="Confirm new password"
          password={form.password}
          password2={form.password2}
          onPassword={(password) => setForm((f) => ({ ...f, password }))}
          onPassword2={(password2) => setForm((f) => ({ ...f, password2 }))}
        />
        <SubmitRow busy={busy} busyLabel="Saving…">
          Change password
        </SubmitRow>
      </form>
      <SecurityEventsList />
    </>
  );
}
