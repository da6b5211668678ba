import { OutlineIcon } from '../../ui/OutlineIcon';
import { passwordChecks } from './validation';

export function PasswordChecklist({ password }: { password: string }) {
  const checks = passwordChecks(password);
  return (
    <ul className="checklist" aria-label="Password requirements">
      {checks.map((check) => (
        <li
          key={check.id}
          className={check.ok ? 'checklist__item is-ok' : 'checklist__item'}
          data-ok={check.ok}
        >
          <span className="checklist__icon" aria-hidden="true">
            <OutlineIcon size={14} box="0 0 16 16" stroke={2} round>
              {check.ok ? (
                <path d="M3 8.5l3 3 7-7" />
              ) : (
                <circle cx="8" cy="8" r="3" fill="currentColor" stroke="none" />
              )}
            </OutlineIcon>
          </span>
          {check.label}
          <span className="visually-hidden">{check.ok ? ' (met)' : ' (not met)'}</span>
        </li>
      ))}
    </ul>
  );
}
