/**
 * The hub's ordering guarantees, on a real socket.io server and a log whose reads and fan-out the test
 * controls: live pushes that arrive while a replay is read wait for it and are not emitted twice; a fan-out
 * that skips seqs, or says it lost some, makes the sockets catch up from the log; a second member of the
 * group waits on standby and takes over.
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Server as SocketServer } from 'socket.io';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { topicOf } from '@meridian/platform/ports/eventBus';
import { listenOn } from '@meridian/platform/util/freePort';
import { silentLogger } from '../logger.js';
import { userRoom } from '../realtime.js';
import { io as connect } from 'socket.io-client';
import { isBalancePush, RecordingSocket, waitFor } from '../testing/money.js';
import { createLiveHub, type LiveHub } from './hub.js';
import type { FanOutListener, LiveBatch, LiveLog } from './liveLog.js';
import { createMemoryLiveLog } from './liveLog.memory.js';

/** A memory log whose reads can be held (after taking their snapshot) and whose fan-out can drop batches. */
function controlledLog() {
  const inner = createMemoryLiveLog();
  let listener: FanOutListener | undefined;
  let gate: Promise<void> | null = null;
  let open = () => {};
  let dropNext = 0;
  let reads = 0;
  inner.onFanOut({
    batch: (b: LiveBatch) => {
      if (dropNext > 0) dropNext -= 1;
      else listener?.batch(b);
    },
    lost: () => listener?.lost(),
  });
  const log: LiveLog = {
    ...inner,
    async read(rooms, after) {
      reads += 1;
      const snapshot = await inner.read(rooms, after);
      if (gate) await gate;
      return snapshot;
    },
    onFanOut: (l) => void (listener = l),
  };
  return {
    log,
    reads: () => reads,
    holdReads() {
      gate = new Promise((r) => (open = r));
    },
    releaseReads() {
      gate = null;
      open();
    },
    dropFanOut: (n: number) => void (dropNext = n),
    lost: () => listener?.lost(),
  };
}

const servers: Array<{ io: SocketServer; http: Server; hub: LiveHub }> = [];
const sockets: RecordingSocket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const { io, hub } of servers.splice(0)) {
    hub.stop();
    await new Promise<void>((r) => io.close(() => r()));
  }
});

/** socket.io joining `user:<auth.userId>` as realtime.ts does, then the hub. */
async function startHub(log: LiveLog) {
  const http = createServer();
  const io = new SocketServer(http);
  io.on('connection', (s) => void s.join(userRoom(String(s.handshake.auth.userId))));
  const hub = createLiveHub({ io, logger: silentLogger, log, fanOutWaitMs: 50 });
  const port = await listenOn(http, 0, '127.0.0.1');
  servers.push({ io, http, hub });
  return { hub, url: `http://127.0.0.1:${port}` };
}

function openSocket(
  url: string,
  userId: string,
  lastPosition: string | null = null,
): Promise<RecordingSocket> {
  const socket = connect(url, {
    transports: ['websocket'],
    auth: { userId, lastPosition },
    reconnection: false,
  });
  const recording = new RecordingSocket(socket);
  sockets.push(recording);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(recording));
    socket.once('connect_error', reject);
  });
}

const status = (userId: string, id: string) => ({
  to: { userId },
  event: 'status/changed',
  payload: { kind: 'deposit', id, status: 'Pending' },
});
const ids = (s: RecordingSocket) =>
  s.pushes.filter((p) => p.event === 'status/changed').map((p) => p.payload.id);

describe('live hub ordering', () => {
  it('live pushes arriving while the replay is read come after it, once', async () => {
    const c = controlledLog();
    const { hub, url } = await startHub(c.log);
    const user = randomUUID();
    const [seen] = await hub.publish([status(user, 'seen')]);
    await hub.publish([status(user, 'missed1'), status(user, 'missed2')]);
    c.holdReads();
    const s = await openSocket(url, user, seen.position);
    await waitFor(() => c.reads() > 0, 'the replay is being read');
    // published after the replay's snapshot, before it is emitted: held back
    await hub.publish([status(user, 'live1')]);
    await hub.publish([status(user, 'live2')]);
    expect(ids(s)).toEqual([]);
    c.releaseReads();
    await s.waitFor((p) => p.payload.id === 'live2');
    expect(ids(s)).toEqual(['missed1', 'missed2', 'live1', 'live2']);
    const seqs = s.pushes.map((p) => Number(String(p.payload.position).split('.')[1]));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  });

  /** A hub on a controlled log, and a user's socket that has had its first push ('one'). */
  const socketPastOne = async () => {
    const c = controlledLog();
    const { hub, url } = await startHub(c.log);
    const user = randomUUID();
    const s = await openSocket(url, user);
    await hub.publish([status(user, 'one')]);
    await s.waitFor((p) => p.payload.id === 'one');
    return { c, hub, user, s };
  };

  it('a fan-out that skips pushes makes the sockets catch up from the log, in order', async () => {
    const { c, hub, user, s } = await socketPastOne();
    c.dropFanOut(2);
    await hub.publish([status(user, 'lost1')]);
    await hub.publish([status(randomUUID(), 'other'), status(user, 'lost2')]);
    await hub.publish([status(user, 'next')]);
    await s.waitFor((p) => p.payload.id === 'next');
    expect(ids(s)).toEqual(['one', 'lost1', 'lost2', 'next']);
  });

  it('a fan-out that says it lost messages makes the sockets catch up at once', async () => {
    const { c, hub, user, s } = await socketPastOne();
    c.dropFanOut(1);
    await hub.publish([status(user, 'lost')]);
    c.lost();
    await s.waitFor((p) => p.payload.id === 'lost');
    await hub.publish([status(user, 'next')]);
    await s.waitFor((p) => p.payload.id === 'next');
    expect(ids(s)).toEqual(['one', 'lost', 'next']);
  });

  it('a second member of the group waits on standby and takes over when the first stops', async () => {
    const bus = createInProcEventBus({ path: ':memory:' });
    try {
      const first = await startHub(createMemoryLiveLog());
      const second = await startHub(createMemoryLiveLog());
      const user = randomUUID();
      const s = await openSocket(second.url, user);
      const group = `live-${randomUUID()}`;
      const subA = await first.hub.subscribe(bus, group, { standbyRetryMs: 20 });
      const subB = await second.hub.subscribe(bus, group, { standbyRetryMs: 20 });
      expect([subA.active(), subB.active()]).toEqual([true, false]);
      await subA.stop();
      await waitFor(() => subB.active(), 'the standby took over');
      const event = {
        id: randomUUID(),
        type: 'BalancesChanged',
        data: { userId: user, depositCents: 500, investedCents: 0, profitCents: 0 },
      };
      await bus.publish(topicOf('ledger'), [
        {
          ...event,
          streamId: `account-${user}`,
          version: 1,
          position: 1,
          occurredAt: new Date().toISOString(),
          correlationId: event.id,
          causationId: null,
          actor: null,
        },
      ]);
      await s.waitFor(isBalancePush(5), 'push through the new member');
      await subB.stop();
    } finally {
      await bus.close();
    }
  });
});
