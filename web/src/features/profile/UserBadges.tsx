import type { User } from '../auth/authTypes';

/** A user's role, whether their email is verified, and their KYC status when they have one. */
export function UserBadges({ user }: { user: Pick<User, 'role' | 'isVerified' | 'kycStatus'> }) {
  return (
    <div className="cluster user-card__badges">
      <span className={`badge badge--role-${user.role}`}>{user.role}</span>
      <span className={`badge ${user.isVerified ? 'badge--success' : 'badge--warning'}`}>
        {user.isVerified ? 'Verified' : 'Unverified'}
      </span>
      {user.kycStatus ? <span className="badge badge--neutral">KYC: {user.kycStatus}</span> : null}
    </div>
  );
}
