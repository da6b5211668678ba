import { useEffect, useState } from 'react';
import { toast } from '../../ui/toast';
import { api } from '../../app/apiClient';
import { useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card, PageHeader } from '../../ui/Card';
import { LoadingBlock } from '../../ui/Spinner';
import { listFrom } from '../queues/lists';
import { Avatar } from '../../ui/Avatar';
import { NoticeCard } from '../../ui/ScreenParts';

export interface Referral {
  _id: string;
  name: string;
  email: string;
  photo?: string;
}

export const REFERRAL_MESSAGES = {
  empty: 'No Referrals yet, Refer a friend and earn up to $5',
  copied: 'Referral code copied to clipboard!',
  copyFailed: 'Failed to copy referral code.',
  linkCopied: 'Referral link copied to clipboard!',
} as const;

/** GET api/users/referrals -> { referrals: Referral[] } or { message: 'No referrals' }. */
async function fetchReferrals(): Promise<Referral[]> {
  return listFrom<Referral>((await api.get('users/referrals')).data, 'referrals');
}

async function copy(text: string, ok: string) {
  try {
    if (!text || !navigator.clipboard) throw new Error('Clipboard unavailable');
    await navigator.clipboard.writeText(text);
    toast.success(ok);
  } catch {
    toast.error(REFERRAL_MESSAGES.copyFailed);
  }
}

/** /referrals: the people the user referred and the user's own referralCode to share. */
export function ReferralsPage() {
  const code = useAppSelector((s) => s.auth.user?.referralCode ?? '');
  const [list, setList] = useState<Referral[] | null>(null);
  const [failed, setFailed] = useState(false);
  const link = code ? `${window.location.origin}/register?ref=${encodeURIComponent(code)}` : '';

  useEffect(() => {
    let live = true;
    fetchReferrals().then(
      (l) => live && setList(l),
      () => {
        if (!live) return;
        setFailed(true);
        setList([]);
      },
    );
    return () => {
      live = false;
    };
  }, []);

  return (
    <div className="container section">
      <PageHeader
        eyebrow="Referrals"
        title="Refer a friend"
        subtitle="Share your code. When a friend you referred makes their first confirmed deposit, you earn $5."
      />
      <Card className="referral-card">
        <div className="referral-card__code">
          <p className="balance-strip__label">Your referral code</p>
          <p className="referral-code" data-testid="referral-code">
            {code || '—'}
          </p>
          <Button onClick={() => copy(code, REFERRAL_MESSAGES.copied)} disabled={!code}>
            Copy code
          </Button>
        </div>
        <div className="referral-card__link">
          <label className="field__label" htmlFor="referral-link">
            Share link
          </label>
          <div className="input-group">
            <input
              id="referral-link"
              className="input input--mono"
              readOnly
              value={link}
              onFocus={(e) => e.target.select()}
            />
          </div>
          <Button
            variant="secondary"
            size="sm"
            onClick={() => copy(link, REFERRAL_MESSAGES.linkCopied)}
            disabled={!link}
          >
            Copy link
          </Button>
        </div>
      </Card>

      <section className="section-block" aria-labelledby="referred-title">
        <h2 className="h3" id="referred-title">
          People you referred
        </h2>
        {list === null ? <LoadingBlock label="Loading your referrals…" /> : null}
        {list !== null && list.length === 0 ? (
          <NoticeCard title={failed ? 'Failed to fetch your referrals.' : REFERRAL_MESSAGES.empty} />
        ) : null}
        {list && list.length > 0 ? (
          <ul className="bare-list person-list" aria-label="Referrals">
            {list.map((r) => (
              <li key={r._id} className="person">
                <Avatar size="md" name={r.name} photo={r.photo} />
                <span>
                  <span className="person__name">{r.name}</span>
                  <span className="person__email">{r.email}</span>
                </span>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  );
}
