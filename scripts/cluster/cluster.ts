/**
 * `make cluster`: the production topology on one machine, without containers.
 *
 *   Kafka (KRaft, official jars) ── identity, notification, ledger, investment, withdrawal, kyc
 *   Redis (sessions, rate limits, socket fan-out, live log)      each its own OS process, own SQLite store
 *   gateway-a :8080 and gateway-b :8081, both serving the SPA, sharing Redis
 *
 * A supervisor (this file) starts every process, restarts one that dies (after 0.25 s, doubling to 10 s while it keeps dying within 30 s of its start),
 * keeps pid files in <dir>/<name>.pid and logs in <dir>/logs/<name>.log, and on SIGINT/SIGTERM stops
 * the gateways, then the services, then the broker. Each process is `node --import tsx <main.ts>`: one
 * OS process per service, so a pid file's `kill -9` kills the service itself.
 *
 * The fault drills (tests/cluster/*.int.spec.ts) and `make bench` use startCluster() programmatically.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { keptSecrets } from '@meridian/standalone/secrets';
import { startKafkaBroker, freePort, kafkaUnavailableReason, type KafkaBroker } from '../kafka/broker.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const SERVICES = ['identity', 'notification', 'ledger', 'kyc', 'investment', 'withdrawal'] as const;
export type ServiceName = (typeof SERVICES)[number];
export type ProcessName = ServiceName | 'gateway-a' | 'gateway-b';

export interface ClusterOptions {
  /** Pid files, logs, stores and the broker's data (default data/cluster). */
  dir?: string;
  /** Gateway ports (default 8080 and 8081). */
  ports?: [number, number];
  /** Base of the services' gRPC ports: identity +1, notification +2, kyc +3 (HTTP +13), ledger +4, investment +5, withdrawal +6 (default 50050). */
  grpcBase?: number;
  /** An existing broker; default: one started here under <dir>/kafka. */
  kafkaBrokers?: string[];
  /** Kafka client port when the broker is started here (default: 9092 when free, else any free port). */
  kafkaPort?: number;
  /** Default redis://127.0.0.1:6379/1 (a database of its own, so `make start` and the cluster never share keys). */
  redisUrl?: string;
  /** Extra environment for every process (PLANS_JSON, LOG_LEVEL, ...). */
  env?: Record<string, string>;
  /** Prints progress (make cluster); silent for tests. */
  log?: (line: string) => void;
  readyTimeoutMs?: number;
}

export interface Cluster {
  dir: string;
  urls: [string, string];
  kafkaBrokers: string[];
  /** The broker when this cluster started it (kill / stop / start for drills). */
  broker?: KafkaBroker;
  redisUrl: string;
  admin: { email: string; password: string };
  /** Ports of the services' gRPC servers (and kyc's HTTP). */
  grpc: Record<ServiceName, string>;
  /** The running OS pid of a process, from its pid file. */
  pid(name: ProcessName): number | undefined;
  /** How often the supervisor has started it (1 = never restarted). */
  starts(name: ProcessName): number;
  /** kill -9 (or another signal) by pid file; the supervisor restarts it. Resolves when it is dead. */
  kill(name: ProcessName, signal?: NodeJS.Signals): Promise<void>;
  /** Resolves when the process answers (gRPC port / gateway /healthz). */
  waitReady(name: ProcessName, timeoutMs?: number): Promise<void>;
  /** The tail of a process's log. */
  logTail(name: ProcessName, lines?: number): string;
  stop(): Promise<void>;
}

interface Supervised {
  name: ProcessName;
  script: string;
  env: Record<string, string>;
  child?: ChildProcess;
  starts: number;
  startedAt: number;
  /** Consecutive deaths within 30 s of a start. */
  quickDeaths: number;
  stopping: boolean;
  restartTimer?: NodeJS.Timeout;
  log: WriteStream;
  exited?: Promise<void>;
}

const mains: Record<ProcessName, string> = {
  identity: 'services/identity/src/main.ts',
  notification: 'services/notification/src/main.ts',
  ledger: 'services/ledger/src/main.ts',
  kyc: 'services/kyc/src/main.ts',
  investment: 'services/investment/src/main.ts',
  withdrawal: 'services/withdrawal/src/main.ts',
  'gateway-a': 'gateway/src/main.ts',
  'gateway-b': 'gateway/src/main.ts',
};

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

async function portFree(port: number): Promise<boolean> {
  return !(await portOpen('127.0.0.1', port));
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const say = options.log ?? (() => undefined);
  const dir = resolve(options.dir ?? join(root, 'data/cluster'));
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const ports = options.ports ?? [8080, 8081];
  const base = options.grpcBase ?? 50050;
  const redisUrl = options.redisUrl ?? 'redis://127.0.0.1:6379/1';
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const redis = new URL(redisUrl);
  if (!(await portOpen(redis.hostname, Number(redis.port || 6379)))) {
    throw new Error(
      `no Redis at ${redisUrl}: start one (redis-server --port 6379 --bind 127.0.0.1 --daemonize yes) or set REDIS_URL`,
    );
  }
  for (const p of ports)
    if (!(await portFree(p)))
      throw new Error(`port ${p} is taken: stop what runs there, or set CLUSTER_PORTS`);

  let broker: KafkaBroker | undefined;
  let kafkaBrokers = options.kafkaBrokers;
  if (!kafkaBrokers?.length) {
    const reason = kafkaUnavailableReason();
    if (reason) throw new Error(`cannot run the Kafka broker: ${reason}`);
    const wanted = options.kafkaPort ?? 9092;
    const kafkaPort = (await portFree(wanted)) ? wanted : await freePort();
    say(`kafka: starting a KRaft broker on 127.0.0.1:${kafkaPort} (data in ${join(dir, 'kafka')})`);
    const portFile = join(dir, 'kafka', 'ports.json');
    // the same ports as last time: the formatted log dir names its controller's address
    const savedPorts = existsSync(portFile)
      ? (JSON.parse(readFileSync(portFile, 'utf8')) as { port: number; controllerPort: number })
      : undefined;
    const port = savedPorts && (await portFree(savedPorts.port)) ? savedPorts.port : kafkaPort;
    const controllerPort =
      savedPorts && (await portFree(savedPorts.controllerPort))
        ? savedPorts.controllerPort
        : await freePort();
    broker = await startKafkaBroker({ dir: join(dir, 'kafka'), port, controllerPort });
    writeFileSync(portFile, JSON.stringify({ port, controllerPort }));
    kafkaBrokers = broker.brokers;
  }

  // generated at the first start, kept in <dir>/secrets.json (never fixed defaults): the standalone's code
  const { generatedPassword: _printed, ...secrets } = keptSecrets(join(dir, 'secrets.json'), {
    ...process.env,
    ...options.env,
  });
  const grpc: Record<ServiceName, string> = {
    identity: `127.0.0.1:${base + 1}`,
    notification: `127.0.0.1:${base + 2}`,
    kyc: `127.0.0.1:${base + 3}`,
    ledger: `127.0.0.1:${base + 4}`,
    investment: `127.0.0.1:${base + 5}`,
    withdrawal: `127.0.0.1:${base + 6}`,
  };
  const kycHttp = `127.0.0.1:${base + 13}`;
  const common: Record<string, string> = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    KAFKA_BROKERS: kafkaBrokers.join(','),
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    REDIS_URL: redisUrl,
    APP_URL: `http://localhost:${ports[0]}`,
    ...secrets,
    IDENTITY_GRPC_ADDR: grpc.identity,
    NOTIFICATION_GRPC_ADDR: grpc.notification,
    KYC_GRPC_ADDR: grpc.kyc,
    KYC_HTTP_ADDR: kycHttp,
    LEDGER_GRPC_ADDR: grpc.ledger,
    INVESTMENT_GRPC_ADDR: grpc.investment,
    WITHDRAWAL_GRPC_ADDR: grpc.withdrawal,
    IDENTITY_GRPC_URL: grpc.identity,
    NOTIFICATION_GRPC_URL: grpc.notification,
    KYC_GRPC_URL: grpc.kyc,
    KYC_HTTP_URL: `http://${kycHttp}`,
    LEDGER_GRPC_URL: grpc.ledger,
    INVESTMENT_GRPC_URL: grpc.investment,
    WITHDRAWAL_GRPC_URL: grpc.withdrawal,
    WEB_DIST: join(root, 'web/dist'),
    ...options.env,
  };
  const procs = new Map<ProcessName, Supervised>();
  const names: ProcessName[] = [...SERVICES, 'gateway-a', 'gateway-b'];
  for (const name of names) {
    const env: Record<string, string> = { ...common, DATA_DIR: join(dir, name) };
    if (name === 'gateway-a') env.PORT = String(ports[0]);
    if (name === 'gateway-b') {
      env.PORT = String(ports[1]);
      env.APP_URL = `http://localhost:${ports[1]}`; // its own origin (socket.io and CSRF origin checks); emails link to :ports[0]
    }
    procs.set(name, {
      name,
      script: join(root, mains[name]),
      env,
      starts: 0,
      startedAt: 0,
      quickDeaths: 0,
      stopping: false,
      log: createWriteStream(join(logs, `${name}.log`), { flags: 'a' }),
    });
  }
  const pidFile = (name: ProcessName) => join(dir, `${name}.pid`);
  const pidOf = (name: ProcessName): number | undefined => {
    try {
      return Number(readFileSync(pidFile(name), 'utf8').trim()) || undefined;
    } catch {
      return undefined;
    }
  };

  // never leave a service behind the supervisor (Ctrl-C twice, a test run that dies): one exit listener
  // for the cluster's processes, not one per start (ten of them tripped Node's listener-leak warning)
  const orphanGuard = () => {
    for (const p of procs.values()) p.child?.kill('SIGKILL');
  };
  process.once('exit', orphanGuard);

  const launch = (p: Supervised) => {
    p.starts += 1;
    p.startedAt = Date.now();
    p.log.write(`\n--- supervisor: start #${p.starts} at ${new Date().toISOString()}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', p.script], {
      cwd: root,
      env: { ...process.env, ...p.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    p.child = child;
    child.stdout!.pipe(p.log, { end: false });
    child.stderr!.pipe(p.log, { end: false });
    if (child.pid) writeFileSync(pidFile(p.name), `${child.pid}\n`);
    p.exited = new Promise((res) =>
      child.once('exit', (code, signal) => {
        p.log.write(`--- supervisor: exited (code ${code}, signal ${signal})\n`);
        if (p.child === child) {
          p.child = undefined;
          rmSync(pidFile(p.name), { force: true });
          if (!p.stopping) {
            // back off only while it keeps dying young (a crash loop); a kill after a good run restarts at once
            p.quickDeaths = Date.now() - p.startedAt > 30_000 ? 0 : p.quickDeaths + 1;
            const delay = Math.min(10_000, 250 * 2 ** Math.min(p.quickDeaths, 6));
            say(`${p.name} exited (code ${code}, signal ${signal}); restarting in ${delay} ms`);
            p.restartTimer = setTimeout(() => launch(p), delay);
          }
        }
        res();
      }),
    );
  };

  const readyCheck = async (name: ProcessName): Promise<boolean> => {
    if (name === 'gateway-a' || name === 'gateway-b') {
      const port = name === 'gateway-a' ? ports[0] : ports[1];
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
        return r.ok;
      } catch {
        return false;
      }
    }
    const [host, port] = grpc[name].split(':');
    const p = procs.get(name)!;
    return p.child !== undefined && (await portOpen(host, Number(port)));
  };
  const waitReady = async (name: ProcessName, timeoutMs = readyTimeoutMs) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await readyCheck(name)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${name} not ready within ${timeoutMs} ms; log tail:\n${logTail(name, 40)}`);
  };
  const logTail = (name: ProcessName, lines = 30) => {
    try {
      return readFileSync(join(logs, `${name}.log`), 'utf8')
        .split('\n')
        .slice(-lines)
        .join('\n');
    } catch {
      return '';
    }
  };

  let stopped: Promise<void> | undefined;
  const stopAll = () =>
    (stopped ??= (async () => {
      const stopGroup = async (group: ProcessName[]) => {
        await Promise.all(
          group.map(async (name) => {
            const p = procs.get(name)!;
            p.stopping = true;
            clearTimeout(p.restartTimer);
            const child = p.child;
            if (!child) return;
            child.kill('SIGTERM');
            const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
            await p.exited;
            clearTimeout(t);
          }),
        );
      };
      await stopGroup(['gateway-a', 'gateway-b']);
      await stopGroup(['investment', 'withdrawal']);
      await stopGroup(['identity', 'notification', 'kyc', 'ledger']);
      for (const p of procs.values()) p.log.end();
      process.off('exit', orphanGuard);
      await broker?.stop();
    })());

  try {
    // ledger first (investment and withdrawal call it), gateways last, one after the other: both are
    // members of the same six live-push consumer groups, and two members joining a group at once on a
    // loaded machine rebalance it back and forth (a JoinGroup parked at the coordinator holds up the
    // member's other requests on its connection until they time out) for minutes
    for (const group of [
      ['identity', 'notification', 'ledger', 'kyc'],
      ['investment', 'withdrawal'],
      ['gateway-a'],
      ['gateway-b'],
    ] as ProcessName[][]) {
      for (const name of group) launch(procs.get(name)!);
      await Promise.all(group.map((name) => waitReady(name)));
      say(`ready: ${group.join(', ')}`);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  return {
    dir,
    urls: [`http://localhost:${ports[0]}`, `http://localhost:${ports[1]}`],
    kafkaBrokers,
    broker,
    redisUrl,
    admin: { email: secrets.ADMIN_EMAIL, password: secrets.ADMIN_PASSWORD },
    grpc,
    pid: pidOf,
    starts: (name) => procs.get(name)!.starts,
    async kill(name, signal = 'SIGKILL') {
      const p = procs.get(name)!;
      const pid = pidOf(name);
      if (!pid || !p.child) throw new Error(`${name} is not running`);
      const exited = p.exited;
      process.kill(pid, signal);
      await exited;
    },
    waitReady,
    logTail,
    stop: stopAll,
  };
}

async function main(): Promise<void> {
  const envPorts = process.env.CLUSTER_PORTS?.split(',').map(Number);
  const say = (line: string) => process.stdout.write(`cluster: ${line}\n`);
  const cluster = await startCluster({
    ports: envPorts?.length === 2 ? [envPorts[0], envPorts[1]] : undefined,
    kafkaBrokers: process.env.KAFKA_BROKERS?.split(',').filter(Boolean),
    redisUrl: process.env.REDIS_URL,
    log: say,
  });
  say(`Kafka at ${cluster.kafkaBrokers.join(',')}, Redis at ${cluster.redisUrl}`);
  say(`Meridian: ${cluster.urls[0]} and ${cluster.urls[1]} (two gateways, one product)`);
  say(
    `admin: ${cluster.admin.email} / ${cluster.admin.password}   (kept in ${join(cluster.dir, 'secrets.json')})`,
  );
  say(`emails: ${cluster.urls[0]}/api/dev/mailbox?to=EMAIL`);
  say(
    `pids: ${join(cluster.dir, '<name>.pid')}   logs: ${join(cluster.dir, 'logs')}   Ctrl-C stops everything`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping`);
    void cluster.stop().then(() => {
      say('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`make cluster: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
