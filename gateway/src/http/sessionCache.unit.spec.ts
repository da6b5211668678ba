import { describe, expect, it } from 'vitest';
import type { Principal } from '@meridian/proto/meridian/identity/v1/identity';
import type { RevocationFeed, SessionRevocation } from '../sessionRevocations.js';
import { SessionCache } from './sessionCache.js';

/** A feed the test drives: announcements, loss, liveness. */
function fakeFeed() {
  let handlers: { revoked(r: SessionRevocation): void; lost(): void } | undefined;
  const feed = {
    isLive: true,
    live: () => feed.isLive,
    subscribe(h: typeof handlers & object) {
      handlers = h;
      return () => (handlers = undefined);
    },
    close: async () => undefined,
    announce: (r: SessionRevocation) => handlers?.revoked(r),
    lose: () => {
      feed.isLive = false;
      handlers?.lost();
    },
  };
  return feed satisfies RevocationFeed;
}

const jwt = (expSeconds: number) =>
  `h.${Buffer.from(JSON.stringify({ sid: 's', exp: expSeconds })).toString('base64url')}.sig`;

const principal = (over: Partial<Principal> = {}): Principal => ({
  userId: 'u1',
  sessionId: 's1',
  role: 'subscriber',
  impersonatorId: '',
  refreshedSessionToken: '',
  ...over,
});

function setup(ttlMs = 5_000) {
  let now = 1_000_000;
  const feed = fakeFeed();
  const cache = new SessionCache(feed, { ttlMs, retentionMs: 30_000, now: () => now });
  return { feed, cache, advance: (ms: number) => (now += ms), now: () => now };
}

describe('SessionCache', () => {
  it('given a fill, when read, then the principal comes back without the refreshed token', () => {
    const { cache } = setup();
    const token = jwt(2_000_000);
    expect(cache.put(token, principal({ refreshedSessionToken: 'new' }), cache.ticket())).toBe(true);
    expect(cache.get(token)).toEqual(principal());
  });

  it('given a cached session, when its revocation is announced, then it is gone', () => {
    const { cache, feed } = setup();
    const token = jwt(2_000_000);
    cache.put(token, principal(), cache.ticket());
    feed.announce({ sid: 's1' });
    expect(cache.get(token)).toBeUndefined();
  });

  it("given many sessions, when one user's or one session's revocation comes, then exactly theirs go", () => {
    const feed = fakeFeed();
    const cache = new SessionCache(feed, { retentionMs: 30_000, maxEntries: 1_000 });
    const exp = Math.floor(Date.now() / 1000) + 600;
    const token = (i: number) => `${jwt(exp)}${i}`;
    // 1,200 sessions of 300 users (four each): the first 200 are evicted by the bound
    for (let i = 0; i < 1_200; i++)
      cache.put(token(i), principal({ userId: `u${i % 300}`, sessionId: `s${i}` }), cache.ticket());
    expect(cache.size).toBe(1_000);
    expect(cache.indexedKeys).toBe(1_000 + 300); // a key per live session, one per user
    feed.announce({ uid: 'u7' }); // sessions 307, 607 and 907 (7 was evicted)
    expect(cache.get(token(307))).toBeUndefined();
    expect(cache.get(token(607))).toBeUndefined();
    expect(cache.get(token(907))).toBeUndefined();
    expect(cache.get(token(1_107))?.userId).toBe('u207');
    expect(cache.get(token(308))?.userId).toBe('u8');
    feed.announce({ sid: 's308' });
    expect(cache.get(token(308))).toBeUndefined();
    expect(cache.get(token(608))?.sessionId).toBe('s608');
    expect(cache.size).toBe(1_000 - 4);
    expect(cache.indexedKeys).toBe(1_000 - 4 + 299);
  });

  it("given an impersonation, when the admin's sessions are revoked, then it is gone", () => {
    const { cache, feed } = setup();
    const token = jwt(2_000_000);
    cache.put(token, principal({ impersonatorId: 'admin1' }), cache.ticket());
    feed.announce({ uid: 'admin1' });
    expect(cache.get(token)).toBeUndefined();
  });

  it('given a fill whose call started before a revocation of its session, when it answers after, then it is not cached', () => {
    const { cache, feed } = setup();
    const token = jwt(2_000_000);
    const ticket = cache.ticket();
    feed.announce({ sid: 's1' });
    expect(cache.put(token, principal(), ticket)).toBe(false);
    expect(cache.get(token)).toBeUndefined();
  });

  it("given a fill racing a revocation of the user, then it is not cached; another user's fill is", () => {
    const { cache, feed } = setup();
    const ticket = cache.ticket();
    feed.announce({ uid: 'u1' });
    expect(cache.put(jwt(2_000_000), principal(), ticket)).toBe(false);
    expect(cache.put(jwt(2_000_001), principal({ userId: 'u2', sessionId: 's2' }), ticket)).toBe(true);
  });

  it('given the feed lost (messages may be missed), then everything is forgotten and nothing is cached', () => {
    const { cache, feed } = setup();
    const token = jwt(2_000_000);
    cache.put(token, principal(), cache.ticket());
    const ticket = cache.ticket();
    feed.lose();
    expect(cache.get(token)).toBeUndefined();
    feed.isLive = true;
    expect(cache.put(token, principal(), ticket)).toBe(false); // a ticket from before the loss
    expect(cache.put(token, principal(), cache.ticket())).toBe(true);
  });

  it('given a ticket taken while the feed was down, then its fill is refused', () => {
    const { cache, feed } = setup();
    feed.isLive = false;
    const ticket = cache.ticket();
    feed.isLive = true;
    expect(cache.put(jwt(2_000_000), principal(), ticket)).toBe(false);
  });

  it("given a token expiring before the ttl (an impersonation's end), then the entry ends with the token", () => {
    const { cache, advance, now } = setup(60_000);
    const token = jwt(Math.floor(now() / 1000) + 2);
    expect(cache.put(token, principal(), cache.ticket())).toBe(true);
    advance(1_000);
    expect(cache.get(token)).toBeDefined();
    advance(1_000);
    expect(cache.get(token)).toBeUndefined();
  });

  it('given the ttl passed, then the entry is gone; an unreadable token is never cached', () => {
    const { cache, advance } = setup(5_000);
    const token = jwt(2_000_000);
    cache.put(token, principal(), cache.ticket());
    advance(5_000);
    expect(cache.get(token)).toBeUndefined();
    expect(cache.put('not-a-jwt', principal(), cache.ticket())).toBe(false);
  });

  it('given a call slower than the retention, then its answer is not cached', () => {
    const { cache, advance } = setup();
    const ticket = cache.ticket();
    advance(30_000);
    expect(cache.put(jwt(2_000_000), principal(), ticket)).toBe(false);
  });
});
