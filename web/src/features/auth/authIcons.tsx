import { OutlineIcon } from '../../ui/OutlineIcon';

/** The icons of the auth cards other than the login's lock (AuthCard's default). */
export function MailIcon() {
  return (
    <OutlineIcon size={26}>
      <rect x="3.5" y="5.5" width="17" height="13" rx="2.5" />
      <path d="M4 7l8 6 8-6" strokeLinejoin="round" />
    </OutlineIcon>
  );
}

export function UserPlusIcon() {
  return (
    <OutlineIcon size={26}>
      <circle cx="10" cy="8" r="3.5" />
      <path d="M3.5 19.5c.8-3.3 3.4-5 6.5-5s5.7 1.7 6.5 5M18.5 8v6M15.5 11h6" strokeLinecap="round" />
    </OutlineIcon>
  );
}

export function ShieldIcon() {
  return (
    <OutlineIcon size={26}>
      <path d="M12 3l7.5 3v5.5c0 4.5-3.2 8-7.5 9.5-4.3-1.5-7.5-5-7.5-9.5V6L12 3z" strokeLinejoin="round" />
      <path d="M8.5 12l2.5 2.5 4.5-5" strokeLinecap="round" strokeLinejoin="round" />
    </OutlineIcon>
  );
}
