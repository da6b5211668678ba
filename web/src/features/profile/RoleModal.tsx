import { useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { FormError, SelectField } from '../../ui/Field';
import { Modal } from '../../ui/Modal';
import { ROLES, type User } from '../auth/authTypes';
import { validateRole } from '../auth/validation';
import { useCheckedSubmit } from '../../ui/ScreenParts';

export function RoleModal({
  user,
  onClose,
  onSubmit,
}: {
  user: User;
  onClose: () => void;
  onSubmit: (role: string) => Promise<void>;
}) {
  const [role, setRole] = useState('');
  const { error, busy, submit } = useCheckedSubmit();

  async function save(event: FormEvent) {
    await submit(event, validateRole(role), () => onSubmit(role));
  }

  return (
    <Modal title="Change role" onClose={onClose}>
      <form className="form" noValidate onSubmit={save} aria-label="Change role">
        <p className="muted">
          Current role of <strong>{user.name}</strong>:{' '}
          <span className={`badge badge--role-${user.role}`}>{user.role}</span>
        </p>
        <FormError message={error} />
        <SelectField label="New role" name="role" value={role} onChange={(e) => setRole(e.target.value)}>
          <option value="">-- select --</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </SelectField>
        <div className="modal__actions">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={busy} busyLabel="Saving…">
            Update role
          </Button>
        </div>
      </form>
    </Modal>
  );
}
