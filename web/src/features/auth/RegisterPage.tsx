import { useState, type ClipboardEvent, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { useAppDispatch } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { EmailField, FormError, InputField, PhoneField } from '../../ui/Field';
import { AuthCard } from './AuthCard';
import { UserPlusIcon } from './authIcons';
import { registerSubmitted } from './authSlice';
import { CountryField } from './CountryField';
import { NewPasswordFields } from './NewPasswordFields';
import { ProviderButtons } from './ProviderButtons';
import { MESSAGES, validateRegister } from './validation';
import { useCheckedSubmit } from '../../ui/ScreenParts';

export function RegisterPage() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [form, setForm] = useState({
    name: '',
    email: '',
    phone: '',
    country: '',
    password: '',
    password2: '',
    referralCode: params.get('ref') ?? '',
  });
  const { error, busy, submit } = useCheckedSubmit();
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  function blockPaste(event: ClipboardEvent<HTMLInputElement>) {
    event.preventDefault();
    toast.error(MESSAGES.pasteBlocked, { toastId: 'paste-blocked' });
  }

  async function onSubmit(event: FormEvent) {
    await submit(
      event,
      validateRegister(form),
      async () => {
        const { password2: _confirm, referralCode, ...rest } = form;
        return dispatch(
          registerSubmitted({
            ...rest,
            name: rest.name.trim(),
            email: rest.email.trim(),
            phone: rest.phone.trim(),
            referralCode: referralCode.trim(),
          }),
        );
      },
      (result) => {
        if (registerSubmitted.fulfilled.match(result)) navigate('/dashboard', { replace: true });
      },
    );
  }

  return (
    <AuthCard
      title="Create your account"
      subtitle="It takes two minutes. We will email you a link to verify your address."
      icon={<UserPlusIcon />}
      footer={
        <p>
          Already have an account? <Link to="/login">Log in</Link>
        </p>
      }
    >
      <form className="form" noValidate onSubmit={onSubmit} aria-label="Register">
        <FormError message={error} />
        <InputField
          label="Full name"
          name="name"
          autoComplete="name"
          value={form.name}
          onChange={(e) => set('name')(e.target.value)}
        />
        <EmailField value={form.email} onValue={set('email')} />
        <PhoneField value={form.phone} onValue={set('phone')} />
        <CountryField value={form.country} onChange={set('country')} />
        <NewPasswordFields
          label="Password"
          confirmLabel="Confirm password"
          password={form.password}
          password2={form.password2}
          onPassword={set('password')}
          onPassword2={set('password2')}
          onPaste={blockPaste}
        />
        <InputField
          label="Referral code"
          optional
          name="referralCode"
          autoComplete="off"
          value={form.referralCode}
          onChange={(e) => set('referralCode')(e.target.value)}
        />
        <Button type="submit" block busy={busy} busyLabel="Creating account…">
          Create account
        </Button>
        <p className="fine-print">
          By creating an account you agree to our <Link to="/privacy-policy">privacy policy</Link>.
        </p>
      </form>
      <ProviderButtons />
    </AuthCard>
  );
}
