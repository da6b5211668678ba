import { useState, type ClipboardEvent, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { toast } from '../../ui/toast';
import { EmailField, InputField, NameField, PhoneField } from '../../ui/Field';
import { AuthFormCard } from './AuthCard';
import { AUTH_SCREENS } from './authScreens';
import { UserPlusIcon } from './authIcons';
import { registerSubmitted } from './authSlice';
import { CountryField } from './CountryField';
import { NewPasswordFields } from './NewPasswordFields';
import { useAuthSubmit } from './useAuthSubmit';
import { MESSAGES, validateRegister } from './validation';

export function RegisterPage() {
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
  const checked = useAuthSubmit(registerSubmitted);
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  function blockPaste(event: ClipboardEvent<HTMLInputElement>) {
    event.preventDefault();
    toast.error(MESSAGES.pasteBlocked, { toastId: 'paste-blocked' });
  }

  async function onSubmit(event: FormEvent) {
    const { password2: _confirm, referralCode, ...rest } = form;
    const input = {
      ...rest,
      name: rest.name.trim(),
      email: rest.email.trim(),
      phone: rest.phone.trim(),
      referralCode: referralCode.trim(),
    };
    await checked.send(event, validateRegister(form), input, () => navigate('/dashboard', { replace: true }));
  }

  return (
    <AuthFormCard
      screen={AUTH_SCREENS.register}
      icon={<UserPlusIcon />}
      state={checked}
      onSubmit={onSubmit}
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
    </AuthFormCard>
  );
}
