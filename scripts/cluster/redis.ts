/**
 * The Redis server of `make cluster` (and of every test cluster): its own `redis-server` process, never the
 * machine's shared Redis, configured as compose and Kubernetes run theirs:
 *
 * - an ACL user (`meridian`) with a password and the `default` user off, so a client that does not log in is
 *   refused (NOAUTH); the user reaches only keys under `meridian:` and no dangerous command (FLUSHALL, CONFIG,
 *   KEYS, SHUTDOWN, ...; INFO stays, ioredis' ready check sends it);
 * - an append-only file (fsync every second) in `<dir>`, so sessions, claims and the live log survive a restart.
 *
 * The ACL file holds the password's SHA-256, never the password, and is written 600 in a folder made 700.
 * `redisAclLine` is the one ACL rule; compose and infra/k8s write the same rule (their specs check it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';

/** The ACL user every Meridian process logs in to Redis as. */
export const REDIS_USER = 'meridian';

/** The permissions of REDIS_USER after its password: keys under meridian:, any channel, no dangerous command. */
export const REDIS_PERMISSIONS = '~meridian:* &* +@all -@dangerous +info';

/** The ACL file's rule for REDIS_USER (the password as its SHA-256). */
export function redisAclLine(password: string): string {
  const hash = createHash('sha256').update(password).digest('hex');
  return `user ${REDIS_USER} on #${hash} ${REDIS_PERMISSIONS}`;
}

/** A Redis URL with its password replaced by `***`, for logs. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable Redis URL)';
  }
}

/** Why the cluster cannot run its own Redis here (no redis-server on PATH), or null. */
export function redisUnavailableReason(): string | null {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return r.error || r.status !== 0
    ? 'redis-server is not installed (apt-get install redis-server), or set REDIS_URL to a Redis you run'
    : null;
}

export interface LocalRedisOptions {
  /** Its data (appendonlydir), ACL file, config and redis.log. */
  dir: string;
  port: number;
  password: string;
  /** Readiness deadline (default 15 s). */
  readyTimeoutMs?: number;
}

export interface LocalRedis {
  /** redis://meridian:<password>@127.0.0.1:<port>, for REDIS_URL. */
  readonly url: string;
  readonly port: number;
  pid(): number | undefined;
  /** SIGTERM (Redis fsyncs its append-only file and exits), then starts it again on the same data; resolves when it serves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A server of this folder left running by a supervisor that was killed: stopped (SIGTERM, so its
 * append-only file is complete) before a new one opens the same files.
 */
async function stopLeftover(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return; // not running
  }
  if (!pid || !cmdline.includes('redis-server')) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 200 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 50));
}

export async function startLocalRedis(options: LocalRedisOptions): Promise<LocalRedis> {
  const dir = resolve(options.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const acl = join(dir, 'users.acl');
  writeFileSync(acl, `user default off\n${redisAclLine(options.password)}\n`, { mode: 0o600 });
  chmodSync(acl, 0o600);
  const config = join(dir, 'redis.conf');
  writeFileSync(
    config,
    [
      `port ${options.port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `aclfile ${acl}`,
      'appendonly yes',
      'appendfsync everysec',
      'save ""',
      'daemonize no',
      `pidfile ${join(dir, 'redis.pid')}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const url = `redis://${REDIS_USER}:${encodeURIComponent(options.password)}@127.0.0.1:${options.port}`;
  const readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  await stopLeftover(join(dir, 'redis.pid'));

  const launch = async () => {
    const log = createWriteStream(join(dir, 'redis.log'), { flags: 'a', mode: 0o600 });
    const me = spawn('redis-server', [config], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = me;
    me.stdout!.pipe(log);
    me.stderr!.pipe(log);
    // never leave a Redis behind this process (a test run that dies, Ctrl-C twice)
    const orphanGuard = () => me.kill('SIGKILL');
    process.once('exit', orphanGuard);
    exited = new Promise((res) =>
      me.once('exit', () => {
        process.off('exit', orphanGuard);
        if (child === me) child = undefined;
        res();
      }),
    );
    const deadline = Date.now() + readyTimeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      if (child !== me) break;
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined); // connect() rejects with it
      try {
        await probe.connect();
        // loading the append-only file answers LOADING until done
        if ((await probe.ping()) === 'PONG') return;
      } catch (err) {
        last = err;
      } finally {
        probe.disconnect();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    me.kill('SIGKILL');
    const tail = existsSync(join(dir, 'redis.log'))
      ? readFileSync(join(dir, 'redis.log'), 'utf8').split('\n').slice(-10).join('\n')
      : '';
    throw new Error(
      `redis-server on 127.0.0.1:${options.port} did not serve within ${readyTimeoutMs} ms (${String(last)}):\n${tail}`,
    );
  };

  const stop = async () => {
    const c = child;
    if (!c) return;
    c.kill('SIGTERM');
    const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  };

  await launch();
  return {
    url,
    port: options.port,
    pid: () => child?.pid,
    async restart() {
      await stop();
      await launch();
    },
    stop,
  };
}
