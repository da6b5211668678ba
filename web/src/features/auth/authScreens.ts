/** An auth card's closing line: an optional prompt, then its link. */
export interface AuthFooter {
  prompt?: string;
  to: string;
  link: string;
}

/** The copy of an auth screen with a form: its card, its form's accessible name and submit button, its footer. */
export interface AuthScreen {
  title: string;
  /** absent where the screen words it itself */
  subtitle?: string;
  form: string;
  submit: string;
  busyLabel: string;
  footer: AuthFooter;
  /** the sign-in providers' buttons under the form */
  providers?: boolean;
}

/** The copy of the auth screens other than the login's (LoginPage, in the first route, holds its own). */
export const AUTH_SCREENS = {
  register: {
    title: 'Create your account',
    subtitle: 'It takes two minutes. We will email you a link to verify your address.',
    form: 'Register',
    submit: 'Create account',
    busyLabel: 'Creating account…',
    footer: { prompt: 'Already have an account?', to: '/login', link: 'Log in' },
    providers: true,
  },
  forgot: {
    title: 'Forgot password',
    subtitle: 'Enter the email you registered with and we will send you a reset link.',
    form: 'Forgot password',
    submit: 'Get reset email',
    busyLabel: 'Sending…',
    footer: { prompt: 'Remembered it?', to: '/login', link: 'Back to login' },
  },
  resetPassword: {
    title: 'Set a new password',
    subtitle: 'Choose a strong password you do not use anywhere else.',
    form: 'Reset password',
    submit: 'Reset password',
    busyLabel: 'Saving…',
    footer: { to: '/login', link: 'Back to login' },
  },
  loginWithCode: {
    title: 'Enter your access code',
    form: 'Login with code',
    submit: 'Proceed to login',
    busyLabel: 'Checking…',
    footer: { prompt: 'Not you?', to: '/login', link: 'Use another account' },
  },
} satisfies Record<string, AuthScreen>;
