import {
  useId,
  useRef,
  useState,
  type ChangeEvent,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { ATTACHMENT_ACCEPT, MAX_ATTACHMENT_BYTES, MAX_MESSAGE_LENGTH } from './supportTypes';
import { OutlineIcon } from '../../ui/OutlineIcon';

export const COMPOSER_TEXT = {
  tooLong: `A message can be at most ${MAX_MESSAGE_LENGTH.toLocaleString('en-US')} characters.`,
  hint: 'Enter sends, Shift+Enter starts a new line.',
  attach: 'Attach a screenshot or PDF',
  fileTooLarge: 'File size must be less than 10MB.',
} as const;

interface ComposerProps {
  label: string;
  placeholder?: string;
  submitLabel?: string;
  /** Sends the text; resolves true when it was accepted (the field is then cleared). */
  onSend: (text: string) => Promise<boolean>;
  /** Called as the person types (support's typing indicator). */
  onTyping?: () => void;
  /** Controlled value (canned replies fill it); uncontrolled when absent. */
  value?: string;
  onChange?: (value: string) => void;
  disabled?: boolean;
  /** Controls shown beside the send button (internal note switch, canned replies). */
  tools?: ReactNode;
  /**
   * Sends a picked file with the text typed so far (an "Attach" button shows when given); resolves true when
   * it was accepted (the field is then cleared).
   */
  onAttach?: (file: File, text: string) => Promise<boolean>;
}

/**
 * The message field: at most MAX_MESSAGE_LENGTH characters with a live counter; Enter sends and Shift+Enter
 * adds a line. An empty or over-long message is not sent.
 */
export function Composer({
  label,
  placeholder,
  submitLabel = 'Send',
  onSend,
  onTyping,
  value,
  onChange,
  disabled,
  tools,
  onAttach,
}: ComposerProps) {
  const id = useId();
  const [own, setOwn] = useState('');
  const [busy, setBusy] = useState(false);
  const [fileError, setFileError] = useState('');
  const picker = useRef<HTMLInputElement>(null);
  const text = value ?? own;
  const setText = (next: string) => (onChange ? onChange(next) : setOwn(next));
  const over = text.length > MAX_MESSAGE_LENGTH;
  const blank = text.trim() === '';

  async function send() {
    if (busy || blank || over || disabled) return;
    setBusy(true);
    try {
      if (await onSend(text.trim())) setText('');
    } finally {
      setBusy(false);
    }
  }

  /** A picked file goes at once, with the text typed so far (10 MB at most: the server's limit). */
  async function attach(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    event.target.value = '';
    setFileError('');
    if (!file || !onAttach || busy || over || disabled) return;
    if (file.size > MAX_ATTACHMENT_BYTES) {
      setFileError(COMPOSER_TEXT.fileTooLarge);
      return;
    }
    setBusy(true);
    try {
      if (await onAttach(file, text.trim())) setText('');
    } finally {
      setBusy(false);
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void send();
  }

  return (
    <form className="composer" onSubmit={onSubmit} aria-label={label}>
      <label className="visually-hidden" htmlFor={id}>
        {label}
      </label>
      <textarea
        id={id}
        className="input textarea composer__input"
        rows={2}
        value={text}
        placeholder={placeholder}
        aria-describedby={`${id}-count ${id}-hint`}
        aria-invalid={over || undefined}
        disabled={disabled}
        onChange={(e) => {
          setText(e.target.value);
          onTyping?.();
        }}
        onKeyDown={onKeyDown}
      />
      <div className="composer__bar">
        <span id={`${id}-count`} className={`composer__count ${over ? 'is-over' : ''}`}>
          {text.length.toLocaleString('en-US')} / {MAX_MESSAGE_LENGTH.toLocaleString('en-US')}
        </span>
        {over ? (
          <span className="composer__error" role="alert">
            {COMPOSER_TEXT.tooLong}
          </span>
        ) : null}
        <span id={`${id}-hint`} className="visually-hidden">
          {COMPOSER_TEXT.hint}
        </span>
        {fileError ? (
          <span className="composer__error" role="alert">
            {fileError}
          </span>
        ) : null}
        {tools}
        {onAttach ? (
          <>
            <input
              ref={picker}
              type="file"
              className="visually-hidden"
              accept={ATTACHMENT_ACCEPT}
              tabIndex={-1}
              aria-hidden="true"
              data-testid="composer-file"
              onChange={(e) => void attach(e)}
            />
            <button
              type="button"
              className="btn btn--ghost btn--sm composer__attach"
              aria-label={COMPOSER_TEXT.attach}
              title={COMPOSER_TEXT.attach}
              disabled={busy || over || disabled}
              onClick={() => picker.current?.click()}
            >
              <OutlineIcon className="composer__attach-icon" size={16} stroke={2} round>
                <path d="M21 11.5 12.5 20a5 5 0 0 1-7-7L14 4.5a3.5 3.5 0 0 1 5 5L10.5 18a2 2 0 0 1-3-3l8-8" />
              </OutlineIcon>
              Attach
            </button>
          </>
        ) : null}
        <button
          type="submit"
          className="btn btn--primary btn--sm"
          disabled={busy || blank || over || disabled}
          aria-busy={busy || undefined}
        >
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
