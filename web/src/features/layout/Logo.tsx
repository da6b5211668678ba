export function Logo({ inverted = false }: { inverted?: boolean }) {
  return (
    <span className={`logo ${inverted ? 'logo--inverted' : ''}`}>
      <svg viewBox="0 0 32 32" width="30" height="30" aria-hidden="true">
        <rect width="32" height="32" rx="8" fill={inverted ? '#ffffff' : '#0b2545'} />
        <path
          d="M8 22V10l8 8 8-8v12"
          fill="none"
          stroke={inverted ? '#0b2545' : '#8fd3c1'}
          strokeWidth="3"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <span className="logo__word">Meridian</span>
    </span>
  );
}
