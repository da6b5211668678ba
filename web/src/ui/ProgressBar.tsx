/**
 * A labelled progress bar (role="progressbar"): the KYC upload's percentage and each active investment's
 * term on the dashboard. `value` is clamped to [0, 100]; `valueText` is what screen readers announce.
 */
export function ProgressBar({
  value,
  label,
  valueText,
  text,
  className = '',
}: {
  value: number;
  label: string;
  valueText?: string;
  /** What the bar shows inside it; the rounded percentage when omitted. */
  text?: string;
  className?: string;
}) {
  const percent = Math.max(0, Math.min(100, Math.round(Number.isFinite(value) ? value : 0)));
  return (
    <div
      className={`progress ${className}`.trim()}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={valueText}
    >
      <span className="progress__bar" style={{ width: `${percent}%` }} />
      <span className="progress__text">{text ?? `${percent}%`}</span>
    </div>
  );
}
