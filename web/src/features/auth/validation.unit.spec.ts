import { describe, expect, it } from 'vitest';
import {
  MESSAGES,
  isValidEmail,
  passwordChecks,
  validateChangePassword,
  validateForgot,
  validateLogin,
  validateLoginCode,
  validatePhoto,
  validateRegister,
  validateReset,
  validateRole,
} from './validation';

const okRegister = {
  name: 'Ada',
  email: 'ada@example.com',
  phone: '123',
  country: 'Kenya',
  password: 'Secret1!',
  password2: 'Secret1!',
};

describe('spec §5 validation', () => {
  it.each([
    ['ada@example.com', true],
    ['ada.lovelace+x@mail.example.co', true],
    ['ada@[192.168.0.1]', true],
    ['ada@example', false],
    ['ada@example.c', false],
    ['ada.example.com', false],
    ['ada@exa mple.com', false],
  ])('email %s valid=%s', (email, ok) => {
    expect(isValidEmail(email)).toBe(ok);
  });

  it('login: required, then email format', () => {
    expect(validateLogin({ email: '', password: 'x' })).toBe('All fields are required');
    expect(validateLogin({ email: 'a@b.io', password: '' })).toBe('All fields are required');
    expect(validateLogin({ email: 'nope', password: 'x' })).toBe('Please enter a valid email');
    expect(validateLogin({ email: 'a@b.io', password: 'x' })).toBeNull();
  });

  it('register: required, length, email, match, in that order', () => {
    expect(validateRegister({ ...okRegister, name: '' })).toBe('All fields are required');
    expect(validateRegister({ ...okRegister, phone: '' })).toBe('All fields are required');
    expect(validateRegister({ ...okRegister, country: '' })).toBe('All fields are required');
    expect(validateRegister({ ...okRegister, password: 'Ab1!', password2: 'Ab1!', email: 'bad' })).toBe(
      'Password must be up to 6 characters',
    );
    expect(validateRegister({ ...okRegister, email: 'bad' })).toBe('Please enter a valid email');
    expect(validateRegister({ ...okRegister, password2: 'Secret2!' })).toBe('Passwords do not match');
    expect(validateRegister(okRegister)).toBeNull();
  });

  it('forgot, reset, login code, change password, role, photo', () => {
    expect(validateForgot('')).toBe('Please enter an email');
    expect(validateForgot('x@y')).toBe('Please enter a valid email');
    expect(validateReset({ password: '12345', password2: '12345' })).toBe(
      'Password must be up to 6 characters',
    );
    expect(validateReset({ password: '123456', password2: '123457' })).toBe('Passwords do not match');
    expect(validateLoginCode('')).toBe('Please fill in the login code');
    expect(validateLoginCode('12345')).toBe('Access code must be 6 characters');
    expect(validateLoginCode('1234567')).toBe('Access code must be 6 characters');
    expect(validateLoginCode('A1B2C3')).toBeNull();
    expect(validateChangePassword({ oldPassword: '', password: 'a', password2: 'a' })).toBe(
      'All fields are required',
    );
    expect(validateChangePassword({ oldPassword: 'o', password: 'a', password2: 'b' })).toBe(
      'Passwords do not match',
    );
    expect(validateRole('')).toBe('Please select a role');
    expect(validateRole('author')).toBeNull();
    expect(validatePhoto({ type: 'image/gif' })).toBe(MESSAGES.photoType);
    expect(validatePhoto({ type: 'image/png' })).toBeNull();
    expect(validatePhoto({ type: 'image/jpeg' })).toBeNull();
  });

  it('checklist flags each rule independently', () => {
    const ok = (p: string) => Object.fromEntries(passwordChecks(p).map((c) => [c.id, c.ok]));
    expect(ok('')).toEqual({ upper: false, lower: false, digit: false, special: false, length: false });
    expect(ok('Ab1!xy')).toEqual({ upper: true, lower: true, digit: true, special: true, length: true });
    expect(ok('abcdef')).toEqual({ upper: false, lower: true, digit: false, special: false, length: true });
  });
});
