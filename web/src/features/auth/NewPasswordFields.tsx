import type { ClipboardEvent } from 'react';
import { PasswordChecklist } from './PasswordChecklist';
import { PasswordInput } from './PasswordInput';

/** A new password with its checklist, then its confirmation (`onPaste`: what pasting into the confirmation does). */
export function NewPasswordFields(props: {
  label: string;
  confirmLabel: string;
  password: string;
  password2: string;
  onPassword: (value: string) => void;
  onPassword2: (value: string) => void;
  onPaste?: (event: ClipboardEvent<HTMLInputElement>) => void;
}) {
  return (
    <>
      <PasswordInput
        label={props.label}
        name="password"
        autoComplete="new-password"
        value={props.password}
        onChange={props.onPassword}
        hint={<PasswordChecklist password={props.password} />}
      />
      <PasswordInput
        label={props.confirmLabel}
        name="password2"
        autoComplete="new-password"
        value={props.password2}
        onChange={props.onPassword2}
        onPaste={props.onPaste}
      />
    </>
  );
}
