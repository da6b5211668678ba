/** Spec §5 validation texts and rules, pure so every form and test shares them. */
export const MESSAGES = {
  allRequired: 'All fields are required',
  invalidEmail: 'Please enter a valid email',
  passwordTooShort: 'Password must be up to 6 characters',
  passwordsMismatch: 'Passwords do not match',
  pasteBlocked: 'Cannot paste into input field',
  emailRequired: 'Please enter an email',
  codeRequired: 'Please fill in the login code',
  codeLength: 'Access code must be 6 characters',
  roleRequired: 'Please select a role',
  photoType: 'Only jpeg, jpg and png images are allowed',
  countriesFailed: 'Failed to fetch countries. Please try again later.',
} as const;

export const MIN_PASSWORD = 6;
export const LOGIN_CODE_LENGTH = 6;

// Local part, then a domain with a dot and a top-level part of at least 2 letters, or a bracketed IP.
const EMAIL =
  /^(([^<>()[\]\\.,;:\s@"]+(\.[^<>()[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$/;

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email.trim());
}

type Result = string | null;

export function validateLogin(v: { email: string; password: string }): Result {
  if (!v.email || !v.password) return MESSAGES.allRequired;
  if (!isValidEmail(v.email)) return MESSAGES.invalidEmail;
  return null;
}

export function validateRegister(v: {
  name: string;
  email: string;
  phone: string;
  country: string;
  password: string;
  password2: string;
}): Result {
  if (!v.name.trim() || !v.email || !v.password || !v.phone.trim() || !v.country) return MESSAGES.allRequired;
  if (v.password.length < MIN_PASSWORD) return MESSAGES.passwordTooShort;
  if (!isValidEmail(v.email)) return MESSAGES.invalidEmail;
  if (v.password !== v.password2) return MESSAGES.passwordsMismatch;
  return null;
}

export function validateForgot(email: string): Result {
  if (!email) return MESSAGES.emailRequired;
  if (!isValidEmail(email)) return MESSAGES.invalidEmail;
  return null;
}

export function validateReset(v: { password: string; password2: string }): Result {
  if (v.password.length < MIN_PASSWORD) return MESSAGES.passwordTooShort;
  if (v.password !== v.password2) return MESSAGES.passwordsMismatch;
  return null;
}

export function validateLoginCode(code: string): Result {
  if (!code) return MESSAGES.codeRequired;
  if (code.length !== LOGIN_CODE_LENGTH) return MESSAGES.codeLength;
  return null;
}

export function validateChangePassword(v: {
  oldPassword: string;
  password: string;
  password2: string;
}): Result {
  if (!v.oldPassword || !v.password || !v.password2) return MESSAGES.allRequired;
  if (v.password !== v.password2) return MESSAGES.passwordsMismatch;
  return null;
}

export function validateRole(role: string): Result {
  return role ? null : MESSAGES.roleRequired;
}

export const PHOTO_TYPES = ['image/jpeg', 'image/jpg', 'image/png'];

export function validatePhoto(file: { type: string }): Result {
  return PHOTO_TYPES.includes(file.type) ? null : MESSAGES.photoType;
}

/** The live checklist under the password field. */
export function passwordChecks(password: string) {
  return [
    { id: 'upper', label: 'Upper case letter', ok: /[A-Z]/.test(password) },
    { id: 'lower', label: 'Lower case letter', ok: /[a-z]/.test(password) },
    { id: 'digit', label: 'Number (0-9)', ok: /[0-9]/.test(password) },
    { id: 'special', label: 'Special character (!@#$%^&*)', ok: /[^A-Za-z0-9]/.test(password) },
    { id: 'length', label: 'At least 6 characters', ok: password.length >= MIN_PASSWORD },
  ];
}
