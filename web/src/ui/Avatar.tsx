import { initials } from './format';

/** A person's photo, or their initials without one (decorative: the name is written beside it). */
export function Avatar(props: {
  size: 'sm' | 'md' | 'lg' | 'xl';
  name: string | null | undefined;
  photo?: string;
}) {
  return (
    <span className={`avatar avatar--${props.size}`} aria-hidden="true">
      {props.photo ? <img src={props.photo} alt="" /> : initials(props.name)}
    </span>
  );
}
