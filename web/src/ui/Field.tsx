import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

interface FieldShellProps {
  label: string;
  hint?: ReactNode;
  optional?: boolean;
  children: (id: string, describedBy: string | undefined) => ReactNode;
}

function FieldShell({ label, hint, optional, children }: FieldShellProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
        {optional ? <span className="field__optional"> (optional)</span> : null}
      </label>
      {children(id, hintId)}
      {hint ? (
        <div className="field__hint" id={hintId}>
          {hint}
        </div>
      ) : null}
    </div>
  );
}

type InputFieldProps = InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  hint?: ReactNode;
  optional?: boolean;
};

export function InputField({ label, hint, optional, className, ...input }: InputFieldProps) {
  return (
    <FieldShell label={label} hint={hint} optional={optional}>
      {(id, describedBy) => (
        <input id={id} aria-describedby={describedBy} className={`input ${className ?? ''}`} {...input} />
      )}
    </FieldShell>
  );
}

type SelectFieldProps = SelectHTMLAttributes<HTMLSelectElement> & {
  label: string;
  hint?: ReactNode;
  optional?: boolean;
};

export function SelectField({ label, hint, optional, className, children, ...select }: SelectFieldProps) {
  return (
    <FieldShell label={label} hint={hint} optional={optional}>
      {(id, describedBy) => (
        <select
          id={id}
          aria-describedby={describedBy}
          className={`input select ${className ?? ''}`}
          {...select}
        >
          {children}
        </select>
      )}
    </FieldShell>
  );
}

type TextAreaFieldProps = TextareaHTMLAttributes<HTMLTextAreaElement> & {
  label: string;
  hint?: ReactNode;
  optional?: boolean;
};

export function TextAreaField({ label, hint, optional, className, ...area }: TextAreaFieldProps) {
  return (
    <FieldShell label={label} hint={hint} optional={optional}>
      {(id, describedBy) => (
        <textarea
          id={id}
          aria-describedby={describedBy}
          className={`input textarea ${className ?? ''}`}
          {...area}
        />
      )}
    </FieldShell>
  );
}

/** The amount of a money form, in US dollars with cents. */
export function UsdAmountField(input: Omit<InputFieldProps, 'label'>) {
  return (
    <InputField
      label="Amount (USD)"
      name="amount"
      type="number"
      inputMode="decimal"
      min="0"
      step="0.01"
      {...input}
    />
  );
}

/** The email address of a form; `onValue` gets the text typed. */
export function EmailField({
  onValue,
  ...input
}: Omit<InputFieldProps, 'label' | 'onChange'> & { onValue: (value: string) => void }) {
  return (
    <InputField
      label="Email"
      name="email"
      type="email"
      autoComplete="email"
      onChange={(e) => onValue(e.target.value)}
      {...input}
    />
  );
}

/** The phone number of a form; `onValue` gets the text typed. */
export function PhoneField({
  onValue,
  ...input
}: Omit<InputFieldProps, 'label' | 'onChange'> & { onValue: (value: string) => void }) {
  return (
    <InputField
      label="Phone"
      name="phone"
      type="tel"
      autoComplete="tel"
      onChange={(e) => onValue(e.target.value)}
      {...input}
    />
  );
}

/** The form-level success message (nothing while it is empty); announced to screen readers. */
export function FormSuccess({ message }: { message: string }) {
  if (!message) return null;
  return (
    <div className="form-success" role="status">
      {message}
    </div>
  );
}

/** The form-level validation message; announced to screen readers. */
export function FormError({ message }: { message: string }) {
  if (!message) return null;
  return (
    <div className="form-error" role="alert">
      <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
        <path
          fill="currentColor"
          d="M10 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm-.9 4h1.8v5.2H9.1V6Zm.9 8.6a1.1 1.1 0 1 1 0-2.2 1.1 1.1 0 0 1 0 2.2Z"
        />
      </svg>
      <span>{message}</span>
    </div>
  );
}
