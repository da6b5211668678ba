import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { eventReceived } from '../live/liveSlice';
import { LIVE_EVENTS, type ClaimChangedPayload, type ReviewClaim } from '../live/pushContract';
import type { ClaimKind } from './claimsApi';

/** A claim as received, with when it ends on this browser's clock (received + expiresInMs). */
export interface HeldClaim extends ReviewClaim {
  endsAt: number;
}

export interface ClaimsState {
  /** By `<kind>:<id>`. */
  byItem: Record<string, HeldClaim>;
}

export const claimKey = (kind: ClaimKind, id: string) => `${kind}:${id}`;

const held = (c: ReviewClaim, now: number): HeldClaim => ({ ...c, endsAt: now + c.expiresInMs });

const asClaimChanged = (p: unknown): ClaimChangedPayload | null => {
  const o = p as Partial<ClaimChangedPayload> | null;
  return o && typeof o.kind === 'string' && typeof o.id === 'string' && o.claim !== undefined
    ? (o as ClaimChangedPayload)
    : null;
};

const claimsSlice = createSlice({
  name: 'claims',
  initialState: { byItem: {} } as ClaimsState,
  reducers: {
    /** GET api/admin/claims answered: the whole picture. */
    claimsFetched: {
      reducer(state, action: PayloadAction<{ claims: ReviewClaim[]; now: number }>) {
        state.byItem = {};
        for (const c of action.payload.claims)
          state.byItem[claimKey(c.kind, c.id)] = held(c, action.payload.now);
      },
      prepare: (claims: ReviewClaim[]) => ({ payload: { claims, now: Date.now() } }),
    },
    /** Our own claim, takeover or release answered. */
    claimChanged: {
      reducer(
        state,
        action: PayloadAction<{ kind: ClaimKind; id: string; claim: ReviewClaim | null; now: number }>,
      ) {
        const { kind, id, claim, now } = action.payload;
        if (claim) state.byItem[claimKey(kind, id)] = held(claim, now);
        else delete state.byItem[claimKey(kind, id)];
      },
      prepare: (kind: ClaimKind, id: string, claim: ReviewClaim | null) => ({
        payload: { kind, id, claim, now: Date.now() },
      }),
    },
  },
  extraReducers: (builder) => {
    // claims/changed pushed to every admin: claimed, renewed, taken over, released
    builder.addCase(eventReceived, (state, action) => {
      if (action.payload.event !== LIVE_EVENTS.claimChanged) return;
      const change = asClaimChanged(action.payload.payload);
      if (!change) return;
      if (change.claim) state.byItem[claimKey(change.kind, change.id)] = held(change.claim, Date.now());
      else delete state.byItem[claimKey(change.kind, change.id)];
    });
  },
});

export const { claimsFetched, claimChanged } = claimsSlice.actions;
export const claimsReducer = claimsSlice.reducer;
