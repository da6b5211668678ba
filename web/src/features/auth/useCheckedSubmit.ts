import { useState, type FormEvent } from 'react';

/**
 * A form's submit: the form's own check first (its problem is the form's error, and nothing is sent),
 * then `send` with the form busy meanwhile, then `after` with what it answered.
 */
export function useCheckedSubmit<R>(
  check: () => string | null | undefined,
  send: () => Promise<R>,
  after: (result: R) => void,
  initialError: () => string = () => '',
) {
  const [error, setError] = useState(initialError);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problem = check();
    setError(problem ?? '');
    if (problem) return;
    setBusy(true);
    const result = await send();
    setBusy(false);
    after(result);
  }

  return { error, setError, busy, onSubmit };
}
