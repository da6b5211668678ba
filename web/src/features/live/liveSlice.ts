import { createAction, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { LIVE_EVENTS, positionOf } from './liveEvents';

export interface LiveEvent {
  event: string;
  payload: unknown;
}

export interface SequencedLiveEvent extends LiveEvent {
  seq: number;
}

/** How many recent pushes screens can still catch up on after a render batch. */
export const RECENT_LIMIT = 100;

export interface LiveState {
  status: 'idle' | 'connecting' | 'connected' | 'disconnected';
  lastEvent: LiveEvent | null;
  /** Count of pushes received; `recent` holds the last RECENT_LIMIT of them with their number. */
  seq: number;
  recent: SequencedLiveEvent[];
  /** The position of the last push that carried one (echoed to the gateway on reconnect). */
  lastPosition: string | null;
  /** Bumped when the gateway cannot replay from our position: open screens fetch again. */
  resyncs: number;
}

const initialState: LiveState = {
  status: 'idle',
  lastEvent: null,
  seq: 0,
  recent: [],
  lastPosition: null,
  resyncs: 0,
};

const liveSlice = createSlice({
  name: 'live',
  initialState,
  reducers: {
    connectionOpened(state) {
      state.status = 'connecting';
    },
    connected(state) {
      state.status = 'connected';
    },
    disconnected(state) {
      state.status = 'disconnected';
    },
    connectionClosed(state) {
      state.status = 'idle';
      state.lastPosition = null;
    },
    /** A server push; features react to it by its `event` name (see liveEvents.ts and README.md). */
    eventReceived(state, action: PayloadAction<LiveEvent>) {
      state.lastEvent = action.payload;
      state.seq += 1;
      state.recent.push({ ...action.payload, seq: state.seq });
      if (state.recent.length > RECENT_LIMIT) state.recent.splice(0, state.recent.length - RECENT_LIMIT);
      const position = positionOf(action.payload.payload);
      if (position !== null) state.lastPosition = position;
      if (action.payload.event === LIVE_EVENTS.resync) state.resyncs += 1;
    },
  },
});

/**
 * A screen sends an event to the gateway over the live socket (e.g. `support/typing`). Sent only while the
 * socket is connected: dropped otherwise, never queued (it means something only now).
 */
export const sendRequested = createAction<LiveEvent>('live/sendRequested');

export const { connectionOpened, connected, disconnected, connectionClosed, eventReceived } =
  liveSlice.actions;
export const liveReducer = liveSlice.reducer;
