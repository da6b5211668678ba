import { useRef, useState, type KeyboardEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { truncate } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { impersonationExitRequested, selectIsAdmin, userRequested } from '../auth/authSlice';
import { useLogout } from '../auth/useLogout';
import { ProfileTab } from './ProfileTab';
import { SecurityTab } from './SecurityTab';
import { UsersTab } from './UsersTab';
import { Avatar } from '../../ui/Avatar';
import { UserBadges } from './UserBadges';

type TabId = 'profile' | 'security' | 'users';

export function ProfilePage() {
  const dispatch = useAppDispatch();
  const logout = useLogout();
  const user = useAppSelector((s) => s.auth.user);
  const isAdmin = useAppSelector(selectIsAdmin);
  const [tab, setTab] = useState<TabId>('profile');
  const [exiting, setExiting] = useState(false);
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});

  if (!user) return <LoadingBlock label="Loading your profile…" />;

  const tabs: { id: TabId; label: string }[] = [
    { id: 'profile', label: 'Profile' },
    { id: 'security', label: 'Security' },
    ...(isAdmin ? [{ id: 'users' as const, label: 'Users' }] : []),
  ];
  const active = tabs.some((t) => t.id === tab) ? tab : 'profile';

  function onTabKey(event: KeyboardEvent<HTMLButtonElement>) {
    const index = tabs.findIndex((t) => t.id === active);
    let next = -1;
    if (event.key === 'ArrowRight') next = (index + 1) % tabs.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + tabs.length) % tabs.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = tabs.length - 1;
    if (next < 0) return;
    event.preventDefault();
    const id = tabs[next]!.id;
    setTab(id);
    tabRefs.current[id]?.focus();
  }

  async function exitImpersonation() {
    setExiting(true);
    const result = await dispatch(impersonationExitRequested());
    if (impersonationExitRequested.fulfilled.match(result)) {
      await dispatch(userRequested());
      setTab('users');
    }
    setExiting(false);
  }

  return (
    <div className="container section profile">
      <div className="profile__header card">
        <Avatar size="lg" name={user.name} photo={user.photo} />
        <div className="profile__who">
          <h1 className="h2" title={user.name}>
            {truncate(user.name, 10)}
          </h1>
          <p className="muted break-all">{user.email}</p>
          <UserBadges user={user} />
        </div>
        <div className="cluster profile__session">
          {user.isImpersonated ? (
            <Button variant="secondary" onClick={exitImpersonation} busy={exiting} busyLabel="Exiting…">
              Exit Impersonation
            </Button>
          ) : null}
          <Button variant="secondary" onClick={logout}>
            Logout
          </Button>
        </div>
      </div>

      {user.isImpersonated ? (
        <div className="banner banner--info" role="status">
          <p>
            You are viewing Meridian as <strong>{user.name}</strong>. Actions you take apply to this account.
          </p>
        </div>
      ) : null}

      <div className="tabs card">
        <div role="tablist" aria-label="Profile sections" className="tabs__list">
          {tabs.map((t) => (
            <button
              key={t.id}
              ref={(el) => {
                tabRefs.current[t.id] = el;
              }}
              role="tab"
              type="button"
              id={`tab-${t.id}`}
              aria-selected={active === t.id}
              aria-controls={`panel-${t.id}`}
              tabIndex={active === t.id ? 0 : -1}
              className={`tabs__tab ${active === t.id ? 'is-active' : ''}`}
              onClick={() => setTab(t.id)}
              onKeyDown={onTabKey}
            >
              {t.label}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`panel-${active}`} aria-labelledby={`tab-${active}`} className="tabs__panel">
          {active === 'profile' ? <ProfileTab key={user._id} user={user} /> : null}
          {active === 'security' ? <SecurityTab /> : null}
          {active === 'users' ? <UsersTab /> : null}
        </div>
      </div>
    </div>
  );
}
