/**
 * The live log in Redis, shared by every gateway instance (semantics: liveLog.ts). Keys under `prefix`:
 *
 *   epoch            the log's lifetime id (made by the first script that finds none; then the others are reset)
 *   seq              the global push counter (INCRBY per append)
 *   room:<room>      a stream per room, entry id `<seq>-0`, fields e (event) and p (payload JSON), at most ringSize
 *   floors           hash room → the newest seq that room lost to trimming (or the evicted floor when it was made)
 *   rooms            sorted set room → seq of its newest push (which rooms to drop past maxRooms)
 *   evicted          the newest seq lost with a dropped room
 *   seen:<eventId>   an event already logged (PX seenTtlMs): its redelivery appends nothing
 *
 * Each append is ONE Lua script (atomic: seen check, seq, XADD + trim, room bound, PUBLISH on `<prefix>pushes`),
 * so positions are the same on every instance and the fan-out arrives in seq order. Every instance listens
 * on `<prefix>pushes` with its own connection and emits to its own sockets. The scripts compute their keys
 * from the prefix: one Redis node (or a Redis Cluster prefix with a {hash tag}).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  LIVE_LOG_DEFAULTS,
  type FanOutListener,
  type LiveLog,
  type LiveLogOptions,
  type LoggedPush,
  type RoomPush,
} from './liveLog.js';

export interface RedisLiveLogOptions extends LiveLogOptions {
  url: string;
  /** Namespace of every key and of the fan-out channel, e.g. 'meridian:gateway:live:'. */
  prefix: string;
  /** Told when the fan-out connection fails (it reconnects on its own). */
  onError?: (err: unknown) => void;
}

const ENSURE_EPOCH = `
local function ensureEpoch(P, candidate)
  local epoch = redis.call('GET', P .. 'epoch')
  if epoch then return epoch end
  for _, room in ipairs(redis.call('ZRANGE', P .. 'rooms', 0, -1)) do redis.call('DEL', P .. 'room:' .. room) end
  redis.call('DEL', P .. 'rooms', P .. 'floors', P .. 'evicted', P .. 'seq')
  redis.call('SET', P .. 'epoch', candidate)
  return candidate
end
`;

/** ARGV: prefix, candidate epoch, ringSize, maxRooms, seenTtlMs, eventId ('' = none), fan-out JSON, then room, event, payload per push. */
const APPEND = `${ENSURE_EPOCH}
local P = ARGV[1]
local ring = tonumber(ARGV[3])
local maxRooms = tonumber(ARGV[4])
-- an event already logged appends nothing (marked seen last: a script failing half-way is retried whole)
if ARGV[6] ~= '' and redis.call('EXISTS', P .. 'seen:' .. ARGV[6]) == 1 then return false end
local epoch = ensureEpoch(P, ARGV[2])
local n = (#ARGV - 7) / 3
local last = redis.call('INCRBY', P .. 'seq', n)
local first = last - n + 1
local evicted = tonumber(redis.call('GET', P .. 'evicted') or '0')
for i = 1, n do
  local room = ARGV[5 + 3 * i]
  local key = P .. 'room:' .. room
  local seq = first + i - 1
  local newest = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #newest == 0 then
    if evicted > 0 then redis.call('HSET', P .. 'floors', room, evicted) end
  elseif tonumber(string.match(newest[1][1], '^(%d+)')) >= seq then
    -- left over from another epoch: what this room had before is unknown
    redis.call('DEL', key)
    redis.call('HSET', P .. 'floors', room, seq - 1)
  end
  redis.call('XADD', key, seq .. '-0', 'e', ARGV[6 + 3 * i], 'p', ARGV[7 + 3 * i])
  local len = redis.call('XLEN', key)
  if len > ring then
    local old = redis.call('XRANGE', key, '-', '+', 'COUNT', len - ring)
    redis.call('XTRIM', key, 'MAXLEN', ring)
    redis.call('HSET', P .. 'floors', room, string.match(old[#old][1], '^(%d+)'))
  end
  redis.call('ZADD', P .. 'rooms', seq, room)
end
while redis.call('ZCARD', P .. 'rooms') > maxRooms do
  local popped = redis.call('ZPOPMIN', P .. 'rooms')
  redis.call('DEL', P .. 'room:' .. popped[1])
  redis.call('HDEL', P .. 'floors', popped[1])
  local score = tonumber(popped[2])
  if score > evicted then
    evicted = score
    redis.call('SET', P .. 'evicted', popped[2])
  end
end
if ARGV[6] ~= '' then redis.call('SET', P .. 'seen:' .. ARGV[6], '1', 'PX', ARGV[5]) end
redis.call('PUBLISH', P .. 'pushes', epoch .. ' ' .. first .. ' ' .. ARGV[7])
return {epoch, first}
`;

/** ARGV: prefix, epoch, after, rooms… → {'resync'} | {'pushes', head, entries of room 1, …}. */
const READ = `
local P = ARGV[1]
local epoch = redis.call('GET', P .. 'epoch')
if epoch ~= ARGV[2] then return {'resync'} end
local after = tonumber(ARGV[3])
local head = tonumber(redis.call('GET', P .. 'seq') or '0')
if after > head then return {'resync'} end
local evicted = tonumber(redis.call('GET', P .. 'evicted') or '0')
local out = {'pushes', tostring(head)}
for i = 4, #ARGV do
  local key = P .. 'room:' .. ARGV[i]
  local floor = evicted
  if redis.call('EXISTS', key) == 1 then floor = tonumber(redis.call('HGET', P .. 'floors', ARGV[i]) or '0') end
  if floor > after then return {'resync'} end
  out[#out + 1] = redis.call('XRANGE', key, (after + 1) .. '-0', '+')
end
return out
`;

/** ARGV: prefix, candidate epoch → {epoch, seq}. */
const HEAD = `${ENSURE_EPOCH}
local epoch = ensureEpoch(ARGV[1], ARGV[2])
return {epoch, redis.call('GET', ARGV[1] .. 'seq') or '0'}
`;

type Entry = [id: string, fields: string[]];

interface LiveScripts {
  liveAppend(numKeys: 0, ...args: string[]): Promise<[string, number] | null>;
  liveRead(numKeys: 0, ...args: string[]): Promise<[string, string?, ...Entry[][]]>;
  liveHead(numKeys: 0, ...args: string[]): Promise<[string, string]>;
}

const newEpoch = () => randomBytes(6).toString('base64url');

function entryToPush(room: string, [id, fields]: Entry): LoggedPush {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  return {
    seq: Number(id.split('-')[0]),
    room,
    event: f.e,
    payload: JSON.parse(f.p) as Record<string, unknown>,
  };
}

export async function createRedisLiveLog(options: RedisLiveLogOptions): Promise<LiveLog> {
  const ringSize = Math.max(1, options.ringSize ?? LIVE_LOG_DEFAULTS.ringSize);
  const maxRooms = Math.max(1, options.maxRooms ?? LIVE_LOG_DEFAULTS.maxRooms);
  const seenTtlMs = Math.max(1, Math.ceil(options.seenTtlMs ?? LIVE_LOG_DEFAULTS.seenTtlMs));
  const { prefix } = options;
  const channel = `${prefix}pushes`;
  const client = new Redis(options.url, { maxRetriesPerRequest: 3, lazyConnect: false });
  const sub = new Redis(options.url, { autoResubscribe: false, lazyConnect: false });
  client.on('error', (err) => options.onError?.(err));
  sub.on('error', (err) => options.onError?.(err));
  client.defineCommand('liveAppend', { lua: APPEND });
  client.defineCommand('liveRead', { lua: READ });
  client.defineCommand('liveHead', { lua: HEAD });
  const scripts = client as unknown as LiveScripts;
  let listener: FanOutListener | undefined;

  sub.on('message', (ch: string, message: string) => {
    if (ch !== channel || !listener) return;
    const a = message.indexOf(' ');
    const b = message.indexOf(' ', a + 1);
    const epoch = message.slice(0, a);
    const first = Number(message.slice(a + 1, b));
    const raw = JSON.parse(message.slice(b + 1)) as Array<[string, string, Record<string, unknown>]>;
    listener.batch({
      epoch,
      pushes: raw.map(([room, event, payload], i) => ({ seq: first + i, room, event, payload })),
    });
  });
  // Messages published while the fan-out connection was down are lost: once it listens again, say so
  // (the hub then reads what its sockets missed from the streams).
  let subscribedOnce = false;
  sub.on('ready', () => {
    if (!subscribedOnce) return;
    sub.subscribe(channel).then(
      () => listener?.lost(),
      (err: unknown) => options.onError?.(err),
    );
  });
  try {
    await sub.subscribe(channel);
    subscribedOnce = true;
  } catch (err) {
    client.disconnect();
    sub.disconnect();
    throw err;
  }

  return {
    async append(eventId, pushes: readonly RoomPush[]) {
      if (pushes.length === 0) return null;
      const args = [prefix, newEpoch(), String(ringSize), String(maxRooms), String(seenTtlMs), eventId ?? ''];
      args.push(JSON.stringify(pushes.map((p) => [p.room, p.event, p.payload])));
      for (const p of pushes) args.push(p.room, p.event, JSON.stringify(p.payload));
      const res = await scripts.liveAppend(0, ...args);
      if (!res) return null;
      const [epoch, first] = res;
      return { epoch, pushes: pushes.map((p, i) => ({ ...p, seq: Number(first) + i })) };
    },

    async read(rooms, after) {
      const unique = [...new Set(rooms)];
      const res = await scripts.liveRead(0, prefix, after.epoch, String(after.seq), ...unique);
      if (res[0] !== 'pushes') return { kind: 'resync' };
      const pushes: LoggedPush[] = [];
      unique.forEach((room, i) => {
        for (const entry of (res[2 + i] ?? []) as Entry[]) pushes.push(entryToPush(room, entry));
      });
      pushes.sort((x, y) => x.seq - y.seq);
      return { kind: 'pushes', epoch: after.epoch, head: Number(res[1]), pushes };
    },

    async head() {
      const [epoch, seq] = await scripts.liveHead(0, prefix, newEpoch());
      return { epoch, seq: Number(seq) };
    },

    onFanOut(l) {
      listener = l;
    },

    async close() {
      listener = undefined;
      await Promise.all([
        client.quit().catch(() => client.disconnect()),
        sub.quit().catch(() => sub.disconnect()),
      ]);
    },
  };
}
