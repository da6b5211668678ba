import { useState, type ClipboardEvent, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { useAppDispatch } from '../../app/hooks';
import { EmailField, InputField, NameField, PhoneField } from '../../ui/Field';
import { AuthCard, AuthForm } from './AuthCard';
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
      footer={{ prompt: 'Already have an account?', to: '/login', link: 'Log in' }}
    >
      <AuthForm
        label="Register"
        error={error}
        onSubmit={onSubmit}
        submit="Create account"
        busy={busy}
        busyLabel="Creating account…"
        after={
          <p className="fine-print">
            By creating an account you agree to our <Link to="/privacy-policy">privacy policy</Link>.
          </p>
        }
      >
        <NameField label="Full name" value={form.name} onValue={set('name')} />
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
          onValue={set('referralCode')}
        />
      </AuthForm>
      <ProviderButtons />
    </AuthCard>
  );
}
