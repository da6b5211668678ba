import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { EmptyState } from '../../ui/Card';
import { formatUsd, truncate } from '../../ui/format';
import { LoadingBlock } from '../../ui/Spinner';
import { useSentinel } from '../../ui/MoreSentinel';
import {
  impersonationRequested,
  userDeleteConfirmed,
  userRequested,
  userRoleChangeSubmitted,
  usersPageRequested,
  userStatsRequested,
} from '../auth/authSlice';
import type { User } from '../auth/authTypes';
import { ConfirmDialog } from './ConfirmDialog';
import { RoleModal } from './RoleModal';
import { Avatar } from '../../ui/Avatar';
import { UserBadges } from './UserBadges';
import { Facts } from '../../ui/ScreenParts';

/** Users loaded per request; the next page loads as the admin scrolls to the end of the list. */
export const USERS_PAGE_SIZE = 50;
/** The search goes to the server this long after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 300;

export function filterUsers(users: User[], query: string): User[] {
  const q = query.trim().toLowerCase();
  if (!q) return users;
  return users.filter((u) => u.name?.toLowerCase().includes(q) || u.email?.toLowerCase().includes(q));
}

function Stat({ label, value, tone }: { label: string; value: number; tone: string }) {
  return (
    <div className={`stat stat--${tone}`}>
      <span className="stat__value">{value}</span>
      <span className="stat__label">{label}</span>
    </div>
  );
}

/** The server's refusal to delete a user whose money is in motion; group 1 says what is pending. */
const SETTLE_FIRST = /^This user has (.+): settle them first/;

export function UsersTab() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const { users, verifiedUsers, suspendedUsers, totalUsers, usersNextCursor } = useAppSelector((s) => s.auth);
  const me = useAppSelector((s) => s.auth.user);
  const [loaded, setLoaded] = useState(false);
  const [query, setQuery] = useState('');
  /** The search the loaded pages answer (the typed one, once the debounce settles). */
  const [searched, setSearched] = useState('');
  const [loadingMore, setLoadingMore] = useState(false);
  const [roleFor, setRoleFor] = useState<User | null>(null);
  const [deleteFor, setDeleteFor] = useState<User | null>(null);
  /** A deletion the server refused because of pending requests or balances: what they are. */
  const [settleFor, setSettleFor] = useState<{ user: User; what: string } | null>(null);

  /** The first page of a search (and the statistics): what the list shows from scratch. */
  const reload = useCallback(
    async (q: string) => {
      await Promise.all([
        dispatch(usersPageRequested({ limit: USERS_PAGE_SIZE, q: q.trim() })),
        dispatch(userStatsRequested()),
      ]);
    },
    [dispatch],
  );

  useEffect(() => {
    void reload('').finally(() => setLoaded(true));
  }, [reload]);

  useEffect(() => {
    if (query.trim() === searched) return;
    const timer = setTimeout(() => {
      setSearched(query.trim());
      void dispatch(usersPageRequested({ limit: USERS_PAGE_SIZE, q: query.trim() }));
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [dispatch, query, searched]);

  const loadMore = useCallback(() => {
    if (!usersNextCursor || loadingMore || query.trim() !== searched) return;
    setLoadingMore(true);
    void dispatch(
      usersPageRequested({ limit: USERS_PAGE_SIZE, cursor: usersNextCursor, q: searched }),
    ).finally(() => setLoadingMore(false));
  }, [dispatch, usersNextCursor, loadingMore, query, searched]);
  const sentinel = useSentinel(loadMore);

  // the pages loaded answer the server's search; the typed text also narrows them at once
  const shown = useMemo(() => filterUsers(users, query), [users, query]);

  async function changeRole(role: string) {
    if (!roleFor) return;
    const result = await dispatch(userRoleChangeSubmitted({ id: roleFor._id, role }));
    if (userRoleChangeSubmitted.fulfilled.match(result)) {
      setRoleFor(null);
      await reload(searched);
    }
  }

  async function remove(cancelPending = false) {
    const target = cancelPending ? settleFor?.user : deleteFor;
    if (!target) return;
    const result = await dispatch(userDeleteConfirmed({ id: target._id, cancelPending }));
    setDeleteFor(null);
    setSettleFor(null);
    if (userDeleteConfirmed.fulfilled.match(result)) await reload(searched);
    else if (!cancelPending) {
      // refused while money is in motion: offer to cancel the pending requests, then delete
      const message = String(result.payload ?? '');
      const settle = SETTLE_FIRST.exec(message);
      if (settle) setSettleFor({ user: target, what: settle[1]! });
    }
  }

  async function impersonate(user: User) {
    const result = await dispatch(impersonationRequested(user._id));
    if (impersonationRequested.fulfilled.match(result)) {
      await dispatch(userRequested());
      navigate('/dashboard');
    } else {
      window.alert((result.payload as string | undefined) || 'Something went wrong');
    }
  }

  if (!loaded && users.length === 0) return <LoadingBlock label="Loading users…" />;

  return (
    <div className="users-tab">
      <div className="stat-grid" aria-label="User statistics">
        <Stat label="Total users" value={totalUsers} tone="neutral" />
        <Stat label="Verified users" value={verifiedUsers} tone="success" />
        <Stat label="Unverified users" value={totalUsers - verifiedUsers} tone="warning" />
        <Stat label="Suspended users" value={suspendedUsers} tone="danger" />
      </div>

      <div className="search">
        <label className="visually-hidden" htmlFor="user-search">
          Search users
        </label>
        <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" className="search__icon">
          <circle cx="9" cy="9" r="5.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M13 13l4 4" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
        </svg>
        <input
          id="user-search"
          className="input search__input"
          type="search"
          placeholder="Search by name or email"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>

      {shown.length === 0 ? (
        <EmptyState title="No user found..." />
      ) : (
        <ul className="bare-list user-grid" aria-label="Users">
          {shown.map((u) => (
            <li key={u._id} className="user-card" aria-label={u.name}>
              <div className="user-card__head">
                <Avatar size="md" name={u.name} photo={u.photo} />
                <div className="user-card__id">
                  <p className="user-card__name" title={u.name}>
                    {truncate(u.name, 12)}
                  </p>
                  <p className="user-card__email" title={u.email}>
                    {u.email}
                  </p>
                </div>
              </div>
              <UserBadges user={u} />
              <Facts
                className="user-card__money"
                rows={[
                  { term: 'Deposit', value: formatUsd(u.balance) },
                  { term: 'Invested', value: formatUsd(u.investmentBalance) },
                  { term: 'Profit', value: formatUsd(u.totalMaturityAmount) },
                ]}
              />
              {u._id === me?._id ? (
                <p className="user-card__note">Your own balances are edited by another admin.</p>
              ) : (
                <div className="user-card__links">
                  <Link to={`/edit-user-balance/${u._id}`}>Edit deposit</Link>
                  <Link to={`/edit-investment-balance/${u._id}`}>Edit investment</Link>
                  <Link to={`/edit-balance/${u._id}`}>Edit profit</Link>
                </div>
              )}
              <div className="cluster user-card__actions">
                {(
                  [
                    { label: 'Change role', aria: 'Change role of', variant: 'secondary', act: setRoleFor },
                    { label: 'Impersonate', aria: 'Impersonate', variant: 'secondary', act: impersonate },
                    { label: 'Delete', aria: 'Delete', variant: 'danger', act: setDeleteFor },
                  ] as const
                ).map((b) => (
                  <Button
                    key={b.label}
                    size="sm"
                    variant={b.variant}
                    onClick={() => b.act(u)}
                    disabled={u._id === me?._id}
                    aria-label={`${b.aria} ${u.name}`}
                  >
                    {b.label}
                  </Button>
                ))}
              </div>
            </li>
          ))}
        </ul>
      )}
      {usersNextCursor ? (
        <div ref={sentinel} className="users-tab__more" data-testid="users-more">
          {loadingMore ? <LoadingBlock label="Loading more users…" /> : null}
        </div>
      ) : null}

      {roleFor ? <RoleModal user={roleFor} onClose={() => setRoleFor(null)} onSubmit={changeRole} /> : null}
      {deleteFor ? (
        <ConfirmDialog
          title="Delete user"
          message="Are you sure to delete this user?"
          confirmLabel="Delete"
          onConfirm={() => remove()}
          onClose={() => setDeleteFor(null)}
        />
      ) : null}
      {settleFor ? (
        <ConfirmDialog
          title="Settle before deleting"
          message={`${settleFor.user.name} has ${settleFor.what}. Cancel the pending requests (their held funds are released) and delete the user?`}
          confirmLabel="Cancel requests and delete"
          onConfirm={() => remove(true)}
          onClose={() => setSettleFor(null)}
        />
      ) : null}
    </div>
  );
}
