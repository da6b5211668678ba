import { useId, useState, type ClipboardEvent, type ReactNode } from 'react';

interface PasswordInputProps {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete?: string;
  onPaste?: (event: ClipboardEvent<HTMLInputElement>) => void;
  hint?: ReactNode;
}

/** Password field with a show/hide toggle. */
export function PasswordInput({
  label,
  name,
  value,
  onChange,
  autoComplete = 'current-password',
  onPaste,
  hint,
}: PasswordInputProps) {
  const id = useId();
  const [visible, setVisible] = useState(false);
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <div className="input-group">
        <input
          id={id}
          name={name}
          className="input"
          type={visible ? 'text' : 'password'}
          value={value}
          autoComplete={autoComplete}
          onChange={(event) => onChange(event.target.value)}
          onPaste={onPaste}
        />
        <button
          type="button"
          className="input-group__toggle"
          aria-label={visible ? `Hide ${label.toLowerCase()}` : `Show ${label.toLowerCase()}`}
          aria-pressed={visible}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? 'Hide' : 'Show'}
        </button>
      </div>
      {hint}
    </div>
  );
}
