import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

export interface LiveEvent {
  event: string;
  payload: unknown;
}

export interface LiveState {
  status: 'idle' | 'connecting' | 'connected' | 'disconnected';
  lastEvent: LiveEvent | null;
}

const initialState: LiveState = { status: 'idle', lastEvent: null };

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
    },
    /** A server push; later features react to it by its `event` name. */
    eventReceived(state, action: PayloadAction<LiveEvent>) {
      state.lastEvent = action.payload;
    },
  },
});

export const { connectionOpened, connected, disconnected, connectionClosed, eventReceived } = liveSlice.actions;
export const liveReducer = liveSlice.reducer;
