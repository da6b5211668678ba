import {
  useId,
  type ChangeEvent,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

/**
 * What every field takes besides its control's own attributes; `onValue` gets the text entered, for a
 * caller that holds only the value (instead of `onChange`).
 */
interface FieldProps {
  label: string;
  hint?: ReactNode;
  optional?: boolean;
  onValue?: (value: string) => void;
  className?: string;
}

/** The attributes a field gives its control: its id, its hint, its classes and the `onValue` handler. */
interface ControlProps {
  id: string;
  'aria-describedby': string | undefined;
  className: string;
  onChange: ((event: ChangeEvent<{ value: string }>) => void) | undefined;
}

/**
 * A labelled field: the label (marked optional where it is), the control `render` draws from the attributes
 * the field gives it (classes `kind` and the caller's) and the caller's other props, then the hint.
 */
function FieldShell<T extends FieldProps>({
  field,
  kind,
  render,
}: {
  field: T;
  kind: string;
  render: (control: ControlProps, rest: Omit<T, keyof FieldProps>) => ReactNode;
}) {
  const { label, hint, optional, onValue, className, ...rest } = field;
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const control: ControlProps = {
    id,
    'aria-describedby': hintId,
    className: `${kind} ${className ?? ''}`,
    onChange: onValue && ((event) => onValue(event.target.value)),
  };
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
        {optional ? <span className="field__optional"> (optional)</span> : null}
      </label>
      {render(control, rest)}
      {hint ? (
        <div className="field__hint" id={hintId}>
          {hint}
        </div>
      ) : null}
    </div>
  );
}

type InputFieldProps = InputHTMLAttributes<HTMLInputElement> & FieldProps;

export function InputField(props: InputFieldProps) {
  return <FieldShell field={props} kind="input" render={(c, input) => <input {...c} {...input} />} />;
}

export function SelectField(props: SelectHTMLAttributes<HTMLSelectElement> & FieldProps) {
  return (
    <FieldShell field={props} kind="input select" render={(c, select) => <select {...c} {...select} />} />
  );
}

export function TextAreaField(props: TextareaHTMLAttributes<HTMLTextAreaElement> & FieldProps) {
  return (
    <FieldShell field={props} kind="input textarea" render={(c, area) => <textarea {...c} {...area} />} />
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

/** A person's name (label "Name" unless given). */
export function NameField(input: Omit<InputFieldProps, 'label'> & { label?: string }) {
  return <InputField label="Name" name="name" autoComplete="name" {...input} />;
}

/** The email address of a form. */
export function EmailField(input: Omit<InputFieldProps, 'label'>) {
  return <InputField label="Email" name="email" type="email" autoComplete="email" {...input} />;
}

/** The phone number of a form. */
export function PhoneField(input: Omit<InputFieldProps, 'label'>) {
  return <InputField label="Phone" name="phone" type="tel" autoComplete="tel" {...input} />;
}

/** A form the screen checks itself (no browser validation), its error message first. */
export function Form({
  label,
  error,
  onSubmit,
  children,
}: {
  label: string;
  error: string;
  onSubmit: (event: FormEvent) => void | Promise<void>;
  children: ReactNode;
}) {
  return (
    <form className="form" noValidate onSubmit={onSubmit} aria-label={label}>
      <FormError message={error} />
      {children}
    </form>
  );
}

/**
 * A form-level message, announced to screen readers (nothing while it is empty): a success is a status, an
 * error an alert with its icon.
 */
function formMessage(tone: 'success' | 'error', message: string): ReactNode {
  if (!message) return null;
  if (tone === 'success') {
    return (
      <div className="form-success" role="status">
        {message}
      </div>
    );
  }
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

/** The form-level success message (nothing while it is empty). */
export function FormSuccess({ message }: { message: string }) {
  return formMessage('success', message);
}

/** The form-level validation message (nothing while it is empty). */
export function FormError({ message }: { message: string }) {
  return formMessage('error', message);
}
