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
            {check.ok ? (
              <svg viewBox="0 0 16 16" width="14" height="14">
                <path
                  d="M3 8.5l3 3 7-7"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                  strokeLinecap="round"
                  strokeLinejoin="round"
                />
              </svg>
            ) : (
              <svg viewBox="0 0 16 16" width="14" height="14">
                <circle cx="8" cy="8" r="3" fill="currentColor" />
              </svg>
            )}
          </span>
          {check.label}
          <span className="visually-hidden">{check.ok ? ' (met)' : ' (not met)'}</span>
        </li>
      ))}
    </ul>
  );
}
