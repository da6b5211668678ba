import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import type { StoredEvent } from '../eventSourcing/types.js';
import { deadLetterTopicOf, type DeadLetter, type DeadLetters, type EventBus } from '../ports/eventBus.js';
import { Signal } from '../util/async.js';
import { secondsSince } from '../metrics.js';
import { busMetrics, handlerRetries, type HandlerRetryOptions } from './busShared.js';
import { openSqlite, readSynchronous } from './sqliteFile.js';

export interface InProcEventBusOptions extends HandlerRetryOptions {
  /** SQLite file holding the log and the committed offsets, or ':memory:'. */
  path: string;
  /** Where handler failures are reported (they are retried). */
  onError?: (
    error: unknown,
    context: { topic: string; group: string; event: StoredEvent; attempt: number },
  ) => void;
  /**
   * File-backed buses also re-check the log every `pollIntervalMs` so that several processes can
   * share one file (publishes from another process do not reach this process's EventEmitter).
   * Default 500 for files, disabled for ':memory:'. Within a process, a publish wakes consumers at once.
   */
  pollIntervalMs?: number;
  /** Told when an event is dead-lettered (the runtime logs it as an error). */
  onDeadLetter?: (context: { topic: string; group: string; event: StoredEvent; error: unknown }) => void;
}

/**
 * The embedded EventBus: a durable log in SQLite, messages(topic, offset, key, json), and the offset
 * each consumer group has committed per topic. publish appends (one transaction) and wakes the
 * subscriptions; each subscription delivers from its group's committed offset, in log order (which
 * is stricter than per-stream order), a fetched batch of up to 100 events at a time (to `handleBatch`
 * when the subscriber has one, all or nothing, else or after its failure to `handler` one by one),
 * commits the batch's offset once (at its end, before a retry's backoff, when stopping) and retries a
 * failing handler with capped exponential backoff (so delivery is at least once and never skips an
 * event) — a transient failure for as long as it lasts, a permanent one not at all, any other up to
 * `maxAttempts` (ports/eventBus.ts) — and dead-letters an event by appending it to `<topic>.dlq`, its
 * reason to `dead_letters`, and committing it, in one transaction (inProcDeadLetters reads and redrives them). A crash redelivers at most the uncommitted part of a batch (consumers de-duplicate).
 * What a bus published lately is served to its own caught-up subscriptions from memory, parsed once for
 * all their groups (RecentMessages), instead of being read back from the log by each group.
 *
 * The log keeps each event's JSON whole, its trace context (StoredEvent.trace, tracing.ts) included.
 *
 * One active subscription per (group, topic) per file (per process): a second one is refused. Buses
 * opened on the same file in one process wake each other at once; other processes notice by polling.
 */
export function createInProcEventBus(options: InProcEventBusOptions): EventBus & {
  /** Number of messages on a topic (tests and diagnostics). */
  size(topic: string): number;
  /** The committed offset of a group on a topic (0 = nothing consumed). */
  committed(group: string, topic: string): number;
  /** The connection's `synchronous` setting: FULL, so a published event survives a power loss. */
  synchronous(): ReturnType<typeof readSynchronous>;
} {
  const { path } = options;
  const db = openSqlite(path, { synchronous: 'FULL' });
  db.exec(`
    CREATE TABLE IF NOT EXISTS messages (
      topic    TEXT NOT NULL,
      "offset" INTEGER NOT NULL,
      key      TEXT NOT NULL,
      json     TEXT NOT NULL,
      PRIMARY KEY (topic, "offset")
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS group_offsets (
      group_id TEXT NOT NULL,
      topic    TEXT NOT NULL,
      "offset" INTEGER NOT NULL,
      PRIMARY KEY (group_id, topic)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS dead_letters (
      dlq_topic   TEXT NOT NULL,
      "offset"    INTEGER NOT NULL,
      group_id    TEXT NOT NULL,
      reason      TEXT NOT NULL,
      error       TEXT NOT NULL,
      at          TEXT NOT NULL,
      redriven_at TEXT,
      PRIMARY KEY (dlq_topic, "offset")
    ) WITHOUT ROWID;
  `);
  const stmt = {
    maxOffset: db.prepare<[string], { o: number | null }>(
      'SELECT MAX("offset") AS o FROM messages WHERE topic = ?',
    ),
    insert: db.prepare('INSERT INTO messages (topic, "offset", key, json) VALUES (?, ?, ?, ?)'),
    fetch: db.prepare<[string, number, number], { offset: number; json: string }>(
      'SELECT "offset", json FROM messages WHERE topic = ? AND "offset" > ? ORDER BY "offset" LIMIT ?',
    ),
    getCommitted: db.prepare<[string, string], { offset: number }>(
      'SELECT "offset" FROM group_offsets WHERE group_id = ? AND topic = ?',
    ),
    commit: db.prepare(
      `INSERT INTO group_offsets (group_id, topic, "offset") VALUES (?, ?, ?)
       ON CONFLICT (group_id, topic) DO UPDATE SET "offset" = excluded."offset"`,
    ),
    count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM messages WHERE topic = ?'),
  };
  /** Appends the events (one transaction); returns the offset of the first and each one's JSON. */
  const appendBatch = db.transaction((topic: string, events: readonly StoredEvent[]) => {
    const first = (stmt.maxOffset.get(topic)?.o ?? 0) + 1;
    const json = events.map((e) => JSON.stringify(e));
    for (let i = 0; i < events.length; i++) stmt.insert.run(topic, first + i, events[i].streamId, json[i]);
    return { first, json };
  });
  const recordDeadLetter = db.prepare(
    'INSERT INTO dead_letters (dlq_topic, "offset", group_id, reason, error, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const deadLetter = db.transaction(
    (topic: string, group: string, offset: number, event: StoredEvent, reason: string, error: unknown) => {
      const dlq = deadLetterTopicOf(topic);
      const at = (stmt.maxOffset.get(dlq)?.o ?? 0) + 1;
      stmt.insert.run(dlq, at, event.streamId, JSON.stringify(event));
      recordDeadLetter.run(dlq, at, group, reason, errorText(error), new Date().toISOString());
      stmt.commit.run(group, topic, offset);
    },
  );
  const { delayMs, afterFailure } = handlerRetries(options, 50);
  const startAtEnd = db.transaction((group: string, topic: string) => {
    if (!stmt.getCommitted.get(group, topic))
      stmt.commit.run(group, topic, stmt.maxOffset.get(topic)?.o ?? 0);
  });

  // Buses opened on the same file in one process share wake-ups and the one-subscription-per-group rule.
  const shared = sharedFor(path);
  const emitter = shared.emitter;
  const active = shared.active;
  /** What this bus published lately, for its own subscriptions (see RecentMessages). */
  const recent = new RecentMessages();
  const mine = new Set<{ stop(): Promise<void> }>();
  const pollMs = options.pollIntervalMs ?? (path === ':memory:' ? undefined : 500);
  let closed = false;
  /** Events fetched (and offsets committed) at a time per subscription. */
  const BATCH = 100;

  const assertOpen = () => {
    if (closed) throw new Error('EventBus is closed');
  };

  return {
    async publish(topic, events) {
      assertOpen();
      if (events.length === 0) return;
      const { first, json } = appendBatch.immediate(topic, events);
      recent.add(topic, first, json);
      emitter.emit(topic);
    },

    async subscribe({ topic, group, handler, handleBatch, fromBeginning = true }) {
      assertOpen();
      const id = `${group}\u0000${topic}`;
      if (active.has(id)) throw new Error(`group ${group} already has an active subscription on ${topic}`);
      if (!fromBeginning) startAtEnd.immediate(group, topic);

      const signal = new Signal();
      const wake = () => signal.notify();
      emitter.on(topic, wake);
      let stopping = false;
      const labels = { group, topic };
      const unmeasure = busMetrics.lag.add(() => [
        {
          labels,
          value: (stmt.maxOffset.get(topic)?.o ?? 0) - (stmt.getCommitted.get(group, topic)?.offset ?? 0),
        },
      ]);

      /** Handles one event, retried with backoff; 'dead': dead-lettered (its offset committed with it). */
      const handleOne = async (
        event: StoredEvent,
        offset: number,
        beforeWait: () => void,
      ): Promise<'handled' | 'dead' | 'stopped'> => {
        for (let attempt = 1; ; attempt++) {
          try {
            const started = process.hrtime.bigint();
            await handler(event);
            busMetrics.handling.observe(labels, secondsSince(started));
            busMetrics.handled.inc(labels);
            return 'handled';
          } catch (err) {
            options.onError?.(err, { topic, group, event, attempt });
            const next = afterFailure(err, attempt);
            if (!next.retry) {
              if (closed) return 'stopped';
              deadLetter.immediate(topic, group, offset, event, next.reason, err);
              busMetrics.deadLettered.inc(labels);
              emitter.emit(deadLetterTopicOf(topic));
              options.onDeadLetter?.({ topic, group, event, error: err });
              return 'dead';
            }
            busMetrics.retried.inc(labels);
            if (stopping) return 'stopped';
            beforeWait(); // what was handled before this event is committed while it backs off
            await signal.wait(delayMs(attempt));
            if (stopping) return 'stopped';
          }
        }
      };

      // Offsets are committed per fetched batch (at its end, before a retry's backoff and when stopping),
      // not per event: a crash redelivers at most the batch, which idempotent consumers skip.
      const loop = async () => {
        while (!stopping) {
          const committed = stmt.getCommitted.get(group, topic)?.offset ?? 0;
          const batch: Fetched[] =
            recent.fetch(topic, committed, BATCH) ?? stmt.fetch.all(topic, committed, BATCH);
          if (batch.length === 0) {
            await signal.wait(pollMs);
            continue;
          }
          let saved = committed;
          let done = committed;
          const commit = () => {
            if (done > saved && !closed) {
              stmt.commit.run(group, topic, done);
              saved = done;
            }
          };
          try {
            const events = batch.map((row) => row.event ?? (JSON.parse(row.json) as StoredEvent));
            if (handleBatch && events.length > 1) {
              try {
                const started = process.hrtime.bigint();
                await handleBatch(events);
                busMetrics.handling.observe(labels, secondsSince(started) / events.length);
                busMetrics.handled.inc(labels, events.length);
                done = batch[batch.length - 1].offset;
                continue;
              } catch {
                // nothing of the batch took effect: one at a time below (retries, dead letters)
                if (stopping) return;
              }
            }
            for (let i = 0; i < batch.length; i++) {
              if (stopping) return;
              const outcome = await handleOne(events[i], batch[i].offset, commit);
              if (outcome === 'stopped') return;
              if (outcome === 'dead') saved = Math.max(saved, batch[i].offset);
              done = batch[i].offset;
            }
          } finally {
            commit();
          }
        }
      };
      const running = loop().catch((err) => {
        // a broken log (closed db) ends the loop; report it
        options.onError?.(err, { topic, group, event: undefined as unknown as StoredEvent, attempt: 0 });
      });

      const sub = {
        async stop() {
          if (!stopping) {
            stopping = true;
            unmeasure();
            emitter.off(topic, wake);
            signal.notify();
          }
          await running;
          if (active.get(id) === sub) active.delete(id);
          mine.delete(sub);
        },
      };
      active.set(id, sub);
      mine.add(sub);
      return sub;
    },

    async ready() {
      assertOpen(); // the log is a local file: up while open
    },

    async close() {
      if (closed) return;
      await Promise.all([...mine].map((s) => s.stop()));
      closed = true;
      db.close();
    },

    size: (topic: string) => stmt.count.get(topic)?.n ?? 0,
    committed: (group: string, topic: string) => stmt.getCommitted.get(group, topic)?.offset ?? 0,
    synchronous: () => readSynchronous(db),
  };
}

interface SharedState {
  emitter: EventEmitter;
  active: Map<string, { stop(): Promise<void> }>;
}

/** A message as a subscription fetches it: from the log (its JSON) or from RecentMessages (parsed once). */
type Fetched = { offset: number; json: string; event?: StoredEvent };

/** Messages kept per topic by RecentMessages (about ten fetched batches of every group). */
const RECENT_PER_TOPIC = 1_000;

/**
 * The last messages a bus published on each topic, by offset, as they were committed (the JSON the log
 * has), each parsed at most once. Its subscriptions that are caught up read their next batch here
 * instead of from the log, and its groups share one parse of each message (handlers only read the
 * events they are given). Only an unbroken run of offsets right after the group's committed one is
 * served; anything else (a message another bus or process published on the file, one older than what
 * is kept, a dead letter) is read from the log as before.
 */
class RecentMessages {
  private readonly topics = new Map<string, Map<number, Fetched>>();

  add(topic: string, first: number, json: readonly string[]): void {
    let kept = this.topics.get(topic);
    if (!kept) this.topics.set(topic, (kept = new Map()));
    for (let i = 0; i < json.length; i++) kept.set(first + i, { offset: first + i, json: json[i] });
    // the map iterates in insertion order: the oldest first
    for (const offset of kept.keys()) {
      if (kept.size <= RECENT_PER_TOPIC) break;
      kept.delete(offset);
    }
  }

  /** Up to `limit` messages after `committed` in offset order, parsed; null when the next one is not kept. */
  fetch(topic: string, committed: number, limit: number): Fetched[] | null {
    const kept = this.topics.get(topic);
    const out: Fetched[] = [];
    for (let offset = committed + 1; kept && out.length < limit; offset++) {
      const m = kept.get(offset);
      if (!m) break;
      m.event ??= JSON.parse(m.json) as StoredEvent;
      out.push(m);
    }
    return out.length > 0 ? out : null;
  }
}

const sharedByFile = new Map<string, SharedState>();

function sharedFor(path: string): SharedState {
  const make = (): SharedState => {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    return { emitter, active: new Map() };
  };
  if (path === ':memory:') return make();
  const key = resolve(path);
  let state = sharedByFile.get(key);
  if (!state) {
    state = make();
    sharedByFile.set(key, state);
  }
  return state;
}

const errorText = (err: unknown) => String((err as Error)?.message ?? err).slice(0, 1_000);

/**
 * The dead letters of an in-process bus file (`make dlq` on the standalone's DATA_DIR): listed from the
 * `<topic>.dlq` topics with their reasons; a redrive appends the events to their topic again (waking the
 * subscriptions of a bus open on the file in this process; others notice by polling) and marks them redriven.
 */
export function inProcDeadLetters(path: string): DeadLetters {
  const bus = createInProcEventBus({ path });
  const db = openSqlite(path);
  const rows = db.prepare<
    [string | null, string | null],
    {
      dlq_topic: string;
      offset: number;
      group_id: string | null;
      reason: string | null;
      error: string | null;
      at: string | null;
      redriven_at: string | null;
      json: string;
    }
  >(
    `SELECT m.topic AS dlq_topic, m."offset" AS "offset", d.group_id, d.reason, d.error, d.at, d.redriven_at, m.json
       FROM messages m LEFT JOIN dead_letters d ON d.dlq_topic = m.topic AND d."offset" = m."offset"
      WHERE m.topic LIKE '%.dlq' AND (? IS NULL OR m.topic = ?)
      ORDER BY m.topic, m."offset"`,
  );
  const mark = db.prepare(
    `INSERT INTO dead_letters (dlq_topic, "offset", group_id, reason, error, at, redriven_at)
     VALUES (?, ?, '', '', '', ?, ?)
     ON CONFLICT (dlq_topic, "offset") DO UPDATE SET redriven_at = excluded.redriven_at`,
  );
  const read = (topic?: string) => {
    const dlq = topic === undefined ? null : deadLetterTopicOf(topic);
    return rows.all(dlq, dlq).map((r) => ({
      offset: r.offset,
      dlqTopic: r.dlq_topic,
      letter: {
        topic: r.dlq_topic.slice(0, -'.dlq'.length),
        group: r.group_id ?? '',
        event: JSON.parse(r.json) as StoredEvent,
        reason: r.reason ?? '',
        error: r.error ?? '',
        at: r.at ?? '',
        ...(r.redriven_at ? { redrivenAt: r.redriven_at } : {}),
      } satisfies DeadLetter,
    }));
  };
  return {
    async list(topic) {
      return read(topic).map((r) => r.letter);
    },
    async redrive(topic, ids) {
      const wanted = read(topic).filter((r) =>
        ids ? ids.includes(r.letter.event.id) : r.letter.redrivenAt === undefined,
      );
      if (wanted.length === 0) return [];
      await bus.publish(
        topic,
        wanted.map((r) => r.letter.event),
      );
      const at = new Date().toISOString();
      db.transaction(() => {
        for (const r of wanted) mark.run(r.dlqTopic, r.offset, at, at);
      })();
      return wanted.map((r) => r.letter.event.id);
    },
    async close() {
      db.close();
      await bus.close();
    },
  };
}
