/** A radio input of a group whose chosen value the caller holds: checked when it is `chosen`, choosing it on change. */
export function Radio({
  name,
  value,
  chosen,
  onChoose,
}: {
  name: string;
  value: string;
  chosen: string | null;
  onChoose: (value: string) => void;
}) {
  return (
    <input
      type="radio"
      name={name}
      value={value}
      checked={chosen === value}
      onChange={() => onChoose(value)}
    />
  );
}
