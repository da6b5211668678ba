import { useEffect, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { ShowOnLogin, ShowOnLogout } from '../../app/guards';
import { useAppSelector } from '../../app/hooks';
import { truncate } from '../../ui/format';
import { useLogout } from '../auth/useLogout';
import { Logo } from './Logo';
import { Avatar } from '../../ui/Avatar';

const LINKS = [
  { to: '/dashboard', label: 'Dashboard' },
  { to: '/plans', label: 'Plans' },
  { to: '/about', label: 'About' },
  { to: '/contact', label: 'Contact' },
  { to: '/how-it-works', label: 'Workflow' },
  { to: '/Hierarchy', label: 'Hierarchy' },
  { to: '/user-profile', label: 'Profile' },
];

export function Navbar() {
  const logout = useLogout();
  const location = useLocation();
  const user = useAppSelector((s) => s.auth.user);
  const [open, setOpen] = useState(false);

  useEffect(() => setOpen(false), [location.pathname]);

  return (
    <header className="navbar">
      <div className="container navbar__inner">
        <Link to="/" className="navbar__brand" aria-label="Meridian home">
          <Logo />
        </Link>
        <button
          type="button"
          className="navbar__toggle"
          aria-expanded={open}
          aria-controls="main-nav"
          aria-label={open ? 'Close menu' : 'Open menu'}
          onClick={() => setOpen((o) => !o)}
        >
          <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
            {open ? (
              <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            ) : (
              <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            )}
          </svg>
        </button>
        <nav id="main-nav" className={`navbar__nav ${open ? 'is-open' : ''}`} aria-label="Main">
          <ul className="bare-list navbar__links">
            {LINKS.map((link) => (
              <li key={link.to}>
                <NavLink
                  to={link.to}
                  className={({ isActive }) => `navbar__link ${isActive ? 'is-active' : ''}`}
                >
                  {link.label}
                </NavLink>
              </li>
            ))}
          </ul>
          <div className="navbar__session">
            <ShowOnLogout>
              <Link to="/login" className="btn btn--primary btn--sm">
                Login
              </Link>
            </ShowOnLogout>
            <ShowOnLogin>
              <Link to="/user-profile" className="navbar__user" title={user?.name}>
                <Avatar size="sm" name={user?.name} photo={user?.photo} />
                <span className="navbar__username">{truncate(user?.name, 10)}</span>
              </Link>
              <button type="button" className="btn btn--secondary btn--sm" onClick={logout}>
                Logout
              </button>
            </ShowOnLogin>
          </div>
        </nav>
      </div>
    </header>
  );
}
