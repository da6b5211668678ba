import { useState, type FormEvent } from 'react';

/**
 * A form's submit with its error and busy state: a problem found in the values becomes the form's error and
 * nothing is sent; otherwise `send` runs with the form busy, and `done` is given what it answered.
 */
export function useCheckedSubmit() {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit<T>(
    event: FormEvent,
    problem: string | null | undefined,
    send: () => Promise<T>,
    done?: (result: T) => void,
  ): Promise<void> {
    event.preventDefault();
    setError(problem ?? '');
    if (problem) return;
    setBusy(true);
    const result = await send();
    setBusy(false);
    done?.(result);
  }

  return { error, busy, submit };
}
