import type { ReactNode } from 'react';
import { Button } from './Button';

/** The actions row at the end of a form with its submit button, busy with `busyLabel` while the form is sent. */
export function SubmitRow({
  busy,
  busyLabel,
  children,
}: {
  busy?: boolean;
  busyLabel?: string;
  children: ReactNode;
}) {
  return (
    <div className="form__actions">
      <Button type="submit" busy={busy} busyLabel={busyLabel}>
        {children}
      </Button>
    </div>
  );
}
