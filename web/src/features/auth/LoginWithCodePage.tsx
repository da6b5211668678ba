import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { InputField } from '../../ui/Field';
import { AuthFormCard } from './AuthCard';
import { AUTH_SCREENS } from './authScreens';
import { ShieldIcon } from './authIcons';
import { loginCodeRequested, loginCodeSubmitted } from './authSlice';
import { useAuthSubmit } from './useAuthSubmit';
import { LOGIN_CODE_LENGTH, validateLoginCode } from './validation';

/** A server message as a sentence (its full stop added when it has none). */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

export function LoginWithCodePage() {
  const { email = '' } = useParams();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [loginCode, setLoginCode] = useState('');
  const checked = useAuthSubmit(loginCodeSubmitted);
  const [resending, setResending] = useState(false);
  // the code asked for this address, if any: on its way, or refused (then no code was emailed)
  const send = useAppSelector((s) =>
    s.auth.loginCodeSend?.email.toLowerCase() === email.toLowerCase() ? s.auth.loginCodeSend : null,
  );

  async function onSubmit(event: FormEvent) {
    const code = loginCode.trim();
    await checked.send(event, validateLoginCode(code), { email, loginCode: code }, () =>
      navigate('/dashboard', { replace: true }),
    );
  }

  async function resend() {
    setResending(true);
    await dispatch(loginCodeRequested(email));
    setResending(false);
  }

  return (
    <AuthFormCard
      screen={AUTH_SCREENS.loginWithCode}
      subtitle={
        send?.status === 'failed' ? (
          <>
            We do not recognise this browser, and no code could be emailed to{' '}
            <strong className="break-all">{email}</strong>: {sentence(send.message || 'Something went wrong')}
          </>
        ) : (
          <>
            We do not recognise this browser. We {send?.status === 'sending' ? 'are emailing' : 'emailed'} a{' '}
            {LOGIN_CODE_LENGTH}-character code to <strong className="break-all">{email}</strong>.
          </>
        )
      }
      icon={<ShieldIcon />}
      state={checked}
      onSubmit={onSubmit}
      after={
        <div className="form__row form__row--center">
          <Button variant="link" onClick={resend} busy={resending} busyLabel="Sending code…">
            Resend code
          </Button>
        </div>
      }
    >
      <InputField
        label="Access code"
        name="loginCode"
        className="input--code"
        inputMode="text"
        autoComplete="one-time-code"
        maxLength={LOGIN_CODE_LENGTH}
        value={loginCode}
        onValue={setLoginCode}
      />
    </AuthFormCard>
  );
}
