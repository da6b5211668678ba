import { useCallback, useEffect, useRef, useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useResyncs } from '../live/useLiveEvents';
import { claimsApi, type ClaimKind } from './claimsApi';
import { claimChanged, claimKey, claimsFetched, type HeldClaim } from './claimsSlice';

/** How often an open item the admin is using renews its claim (the gateway's CLAIM_RENEW_MS). */
export const CLAIM_RENEW_MS = 60_000;

/** Re-renders every `ms` (claims end on the clock, not on a push). */
function useTick(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/**
 * Keeps the claims of every admin queue in the store (for an admin): fetched when the screen opens and after
 * every (re)connection of the live socket (claims are pushed, not logged), then kept by `claims/changed`.
 */
export function useClaimsFeed(): void {
  const dispatch = useAppDispatch();
  const status = useAppSelector((s) => s.live.status);
  // claims are the admins' own business: nobody else asks (the gateway would answer 403)
  const isAdmin = useAppSelector((s) => s.auth.user?.role === 'admin');
  const resyncs = useResyncs();
  useEffect(() => {
    if (!isAdmin || status === 'disconnected') return;
    let live = true;
    claimsApi.list().then(
      (claims) => live && dispatch(claimsFetched(claims)),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [dispatch, isAdmin, status, resyncs]);
}

/** The live claim on an item (null when nobody holds it or it ran out). */
export function useClaimOf(kind: ClaimKind, id: string): HeldClaim | null {
  const now = useTick(5_000);
  const claim = useAppSelector((s) => s.claims.byItem[claimKey(kind, id)]);
  return claim && claim.endsAt > Math.max(now, Date.now()) ? claim : null;
}

export interface ItemClaim {
  /** Who holds the item (null: nobody). */
  claim: HeldClaim | null;
  /** The signed-in admin holds it: their decision buttons work. */
  mine: boolean;
  /** Another admin holds it: show who, disable the decisions, offer the takeover. */
  other: HeldClaim | null;
  takeOver(): Promise<void>;
  busy: boolean;
}

const ACTIVITY = ['pointerdown', 'keydown', 'scroll', 'focus'] as const;

/**
 * Opening an item claims it (while `enabled`: an admin, a pending item), and the claim is renewed every
 * CLAIM_RENEW_MS while the admin uses the page (a pointer, a key, a scroll or focus since the last renewal,
 * and the tab visible): an item left open untouched is released by the gateway five minutes after the last
 * sign of life. Leaving the item (unmount, page unload) releases it.
 */
export function useItemClaim(kind: ClaimKind, id: string, enabled: boolean): ItemClaim {
  useClaimsFeed();
  const dispatch = useAppDispatch();
  const me = useAppSelector((s) => s.auth.user?._id ?? '');
  const claim = useClaimOf(kind, id);
  const [busy, setBusy] = useState(false);
  const mine = claim !== null && claim.adminId === me;
  const mineRef = useRef(mine);
  mineRef.current = mine;

  const claimNow = useCallback(async () => {
    try {
      dispatch(claimChanged(kind, id, await claimsApi.claim(kind, id)));
    } catch {
      // held by another admin: the claims feed shows who
      dispatch(claimsFetched(await claimsApi.list().catch(() => [])));
    }
  }, [dispatch, kind, id]);

  useEffect(() => {
    if (!enabled || !id) return;
    void claimNow();
    let active = false;
    const onActivity = () => (active = true);
    for (const e of ACTIVITY) window.addEventListener(e, onActivity, { passive: true, capture: true });
    const renew = setInterval(() => {
      if (!active || document.visibilityState !== 'visible') return;
      active = false;
      if (mineRef.current) void claimNow();
    }, CLAIM_RENEW_MS);
    const onUnload = () => {
      if (mineRef.current) claimsApi.releaseOnUnload(kind, id);
    };
    window.addEventListener('beforeunload', onUnload);
    return () => {
      clearInterval(renew);
      for (const e of ACTIVITY) window.removeEventListener(e, onActivity, { capture: true });
      window.removeEventListener('beforeunload', onUnload);
      if (mineRef.current) {
        dispatch(claimChanged(kind, id, null));
        void claimsApi.release(kind, id).catch(() => undefined);
      }
    };
  }, [enabled, id, kind, claimNow, dispatch]);

  const takeOver = useCallback(async () => {
    setBusy(true);
    try {
      dispatch(claimChanged(kind, id, await claimsApi.takeOver(kind, id)));
    } finally {
      setBusy(false);
    }
  }, [dispatch, kind, id]);

  return { claim, mine, other: claim && !mine ? claim : null, takeOver, busy };
}

/** For a queue list: the claim another admin holds on an item of `kind` (null: none, or ours). */
export function useOthersClaims(kind: ClaimKind): (id: string) => HeldClaim | null {
  useClaimsFeed();
  const now = useTick(5_000);
  const me = useAppSelector((s) => s.auth.user?._id ?? '');
  const byItem = useAppSelector((s) => s.claims.byItem);
  return (id) => {
    const c = byItem[claimKey(kind, id)];
    return c && c.adminId !== me && c.endsAt > Math.max(now, Date.now()) ? c : null;
  };
}
