/**
 * `make cluster`: the production topology on one machine, without containers.
 *
 *   Kafka (KRaft, official jars) ── identity, notification, ledger, investment, withdrawal, kyc, support
 *     SASL: each service its own SCRAM user, ACLs from platform busAccess.ts (scripts/kafka/acls.ts)
 *   Redis (sessions, rate limits, socket fan-out, live log)      each its own OS process, own SQLite store
 *     its own redis-server (ACL user and password, append-only file) under <dir>/redis
 *   gateway-a :8080 and gateway-b :8081, both serving the SPA, sharing Redis
 *
 * With `replicas` (make cluster CLUSTER_REPLICAS=2) every service runs as that many processes on its one
 * store, each on its own gRPC port, and every client's target lists them all (round robin, grpc/client.ts);
 * the gateways reach the kyc replicas' document endpoint through one front (front.ts), as through a Service.
 *
 * A supervisor (this file) starts every process, restarts one that dies (after 0.25 s, doubling to 10 s while it keeps dying within 30 s of its start),
 * keeps pid files in <dir>/<name>.pid and logs in <dir>/logs/<name>.log, and on SIGINT/SIGTERM stops
 * the gateways, then the services, then the broker and Redis. Each process is `node --import tsx <main.ts>`: one
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
import { randomBytes } from 'node:crypto';
import { portFree, portOpen } from './ports.js';
import { startFront, type Front } from './front.js';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SASLOptions } from 'kafkajs';
import { BUS_PRINCIPALS, KAFKA_SASL_MECHANISM, type BusPrincipal } from '@meridian/platform/busAccess';
import { SERVICES, type ServiceName } from '@meridian/platform/services';
import { keptSecrets, type KeptSecrets } from '@meridian/standalone/secrets';
import { keptMeshCertificates } from '@meridian/standalone/meshCertificates';
import { applyBusAccess } from '../kafka/acls.js';
import { startKafkaBroker, freePort, kafkaUnavailableReason, type KafkaBroker } from '../kafka/broker.js';
import { redactRedisUrl, redisUnavailableReason, startLocalRedis, type LocalRedis } from './redis.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export { SERVICES, type ServiceName };
/** A service's first replica is named as the service (`ledger`), the others `ledger-2`, `ledger-3`. */
export type ReplicaName = ServiceName | `${ServiceName}-${number}`;
export type ProcessName = ReplicaName | 'gateway-a' | 'gateway-b';

/** The most replicas of a service a cluster runs (their ports must stay within the gRPC base's 100). */
export const MAX_REPLICAS = 3;

/** The name of replica `r` (1-based) of `service`. */
export const replicaName = (service: ServiceName, r: number): ReplicaName =>
  r === 1 ? service : `${service}-${r}`;

/** The service a replica belongs to. */
export const serviceOf = (name: ReplicaName): ServiceName => name.replace(/-\d+$/, '') as ServiceName;

export interface ClusterOptions {
  /** Pid files, logs, stores and the broker's data (default data/cluster). */
  dir?: string;
  /** Gateway ports (default 8080 and 8081). */
  ports?: [number, number];
  /**
   * Base of the ports (default 50050): the first replicas' gRPC ports identity +1, notification +2, kyc +3
   * (HTTP +13), ledger +4, investment +5, withdrawal +6, support +7; replica r's the same + 20 × (r − 1);
   * every process's metrics and probes (METRICS_PORT) from +60 on, in the order of `processes`.
   */
  grpcBase?: number;
  /**
   * Processes of every service (default 1, at most MAX_REPLICAS; make cluster: CLUSTER_REPLICAS): all of one
   * service share its store (SQLite in WAL mode; leases keep its relay and loops to one at a time), each
   * listens on its own gRPC port, and every client's target lists them all (`ipv4:a,b`: round robin).
   */
  replicas?: number;
  /** An existing broker; default: one started here under <dir>/kafka. */
  kafkaBrokers?: string[];
  /** Kafka client port when the broker is started here (default: 9092 when free, else any free port). */
  kafkaPort?: number;
  /**
   * A Redis you run (its URL with user and password). Default: the cluster's own redis-server under <dir>/redis
   * (scripts/cluster/redis.ts: an ACL user with the generated REDIS_PASSWORD, an append-only file).
   */
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
  /** The Kafka login of `admin` (a super user) when the broker is the cluster's own, for checks and tools. */
  kafkaSasl?: SASLOptions;
  /** REDIS_URL of every process (with the password: never print it, redactRedisUrl). */
  redisUrl: string;
  /** The cluster's own Redis when it started one (restart for drills). */
  redis?: LocalRedis;
  admin: { email: string; password: string };
  /** Each service's gRPC target, as its clients are given it: host:port, or ipv4:host:port,host:port for replicas. */
  grpc: Record<ServiceName, string>;
  /** Processes per service. */
  replicas: number;
  /** Every process, in start order within its group (services' replicas, then the gateways). */
  processes: ProcessName[];
  /** The processes of a service: ['ledger', 'ledger-2', ...]. */
  replicasOf(service: ServiceName): ReplicaName[];
  /** The host:port a replica's gRPC server listens on. */
  grpcAddress(name: ReplicaName): string;
  /** The Prometheus URL of a process (http://127.0.0.1:<port>/metrics). */
  metricsUrl(name: ProcessName): string;
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

const mains: Record<ServiceName | 'gateway', string> = {
  identity: 'services/identity/src/main.ts',
  notification: 'services/notification/src/main.ts',
  ledger: 'services/ledger/src/main.ts',
  kyc: 'services/kyc/src/main.ts',
  investment: 'services/investment/src/main.ts',
  withdrawal: 'services/withdrawal/src/main.ts',
  support: 'services/support/src/main.ts',
  gateway: 'gateway/src/main.ts',
};

const isGateway = (name: ProcessName): name is 'gateway-a' | 'gateway-b' =>
  name === 'gateway-a' || name === 'gateway-b';

/** Port offsets of the first replicas from the gRPC base; replica r adds 20 × (r − 1). */
const GRPC_OFFSET: Record<ServiceName, number> = {
  identity: 1,
  notification: 2,
  kyc: 3,
  ledger: 4,
  investment: 5,
  withdrawal: 6,
  support: 7,
};
const KYC_HTTP_OFFSET = 13;
/** The front of the kyc replicas' document endpoints (several replicas only). */
const KYC_HTTP_FRONT_OFFSET = 90;
const REPLICA_STRIDE = 20;
const METRICS_OFFSET = 60;

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const say = options.log ?? (() => undefined);
  const dir = resolve(options.dir ?? join(root, 'data/cluster'));
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true, mode: 0o700 });
  const ports = options.ports ?? [8080, 8081];
  const base = options.grpcBase ?? 50050;
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const replicas = options.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS)
    throw new Error(`replicas must be a whole number from 1 to ${MAX_REPLICAS} (got ${replicas})`);
  const replicasOf = (service: ServiceName): ReplicaName[] =>
    Array.from({ length: replicas }, (_, i) => replicaName(service, i + 1));
  const replicaIndex = (name: ReplicaName) => Number(/-(\d+)$/.exec(name)?.[1] ?? 1);
  const grpcAddress = (name: ReplicaName) =>
    `127.0.0.1:${base + GRPC_OFFSET[serviceOf(name)] + REPLICA_STRIDE * (replicaIndex(name) - 1)}`;
  const kycHttpOf = (name: ReplicaName) =>
    `127.0.0.1:${base + KYC_HTTP_OFFSET + REPLICA_STRIDE * (replicaIndex(name) - 1)}`;
  const names: ProcessName[] = [...SERVICES.flatMap(replicasOf), 'gateway-a', 'gateway-b'];
  const metricsPort = (name: ProcessName) => base + METRICS_OFFSET + names.indexOf(name);
  if (options.redisUrl) {
    const given = new URL(options.redisUrl);
    if (!(await portOpen(given.hostname, Number(given.port || 6379))))
      throw new Error(`no Redis at ${redactRedisUrl(options.redisUrl)}: start it, or leave REDIS_URL unset`);
  } else {
    const reason = redisUnavailableReason();
    if (reason) throw new Error(`cannot run the cluster's Redis: ${reason}`);
  }
  for (const p of ports)
    if (!(await portFree(p)))
      throw new Error(`port ${p} is taken: stop what runs there, or set CLUSTER_PORTS`);
  // one replica: host:port; several: every one of them, round robin (grpc/client.ts)
  const grpc = Object.fromEntries(
    SERVICES.map((service) => {
      const addresses = replicasOf(service).map(grpcAddress);
      return [service, addresses.length === 1 ? addresses[0] : `ipv4:${addresses.join(',')}`];
    }),
  ) as Record<ServiceName, string>;
  const kycHttp = replicas > 1 ? `127.0.0.1:${base + KYC_HTTP_FRONT_OFFSET}` : kycHttpOf('kyc');
  // a service's port another cluster holds would be answered by that cluster's service, its readiness included
  const taken = [
    ...SERVICES.flatMap(replicasOf).flatMap((name) => [
      grpcAddress(name),
      ...(serviceOf(name) === 'kyc' ? [kycHttpOf(name)] : []),
    ]),
    ...names.map((name) => `127.0.0.1:${metricsPort(name)}`),
    ...(replicas > 1 ? [kycHttp] : []),
  ];
  for (const address of taken) {
    const p = Number(address.slice(address.lastIndexOf(':') + 1));
    if (!(await portFree(p)))
      throw new Error(`port ${p} (gRPC base ${base}) is taken: another cluster runs there?`);
  }

  // generated at the first start, kept in <dir>/secrets.json (never fixed defaults): the standalone's code,
  // with the passwords of the cluster's Redis and of every Kafka user (busAccess.ts) besides
  const generate = () => randomBytes(24).toString('base64url');
  const kafkaPasswordKey = (p: BusPrincipal) => `KAFKA_${p.toUpperCase()}_PASSWORD`;
  const {
    generatedPassword: _printed,
    REDIS_PASSWORD: redisPassword,
    KAFKA_BROKER_PASSWORD: brokerPassword,
    KAFKA_ADMIN_PASSWORD: kafkaAdminPassword,
    ...kept
  } = keptSecrets(
    join(dir, 'secrets.json'),
    { ...process.env, ...options.env },
    {
      REDIS_PASSWORD: generate,
      KAFKA_BROKER_PASSWORD: generate,
      KAFKA_ADMIN_PASSWORD: generate,
      ...Object.fromEntries(BUS_PRINCIPALS.map((p) => [kafkaPasswordKey(p), generate])),
    },
  );
  const kafkaPasswords = Object.fromEntries(
    BUS_PRINCIPALS.map((p) => [p, (kept as Record<string, string>)[kafkaPasswordKey(p)]!]),
  ) as Record<BusPrincipal, string>;
  const secrets = Object.fromEntries(
    Object.entries(kept).filter(([k]) => !/^KAFKA_\w+_PASSWORD$/.test(k)),
  ) as unknown as KeptSecrets;

  let redis: LocalRedis | undefined;
  if (!options.redisUrl) {
    const portFile = join(dir, 'redis', 'port');
    const saved = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : 0;
    const port = saved && (await portFree(saved)) ? saved : await freePort();
    say(`redis: starting redis-server on 127.0.0.1:${port} (append-only file in ${join(dir, 'redis')})`);
    redis = await startLocalRedis({ dir: join(dir, 'redis'), port, password: redisPassword });
    writeFileSync(portFile, String(port), { mode: 0o600 });
  }
  const redisUrl = options.redisUrl ?? redis!.url;

  let broker: KafkaBroker | undefined;
  let kafkaBrokers = options.kafkaBrokers;
  if (!kafkaBrokers?.length) {
    const reason = kafkaUnavailableReason();
    if (reason) {
      await redis?.stop();
      throw new Error(`cannot run the Kafka broker: ${reason}`);
    }
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
    try {
      // every process logs in as its own SCRAM user; ACLs (busAccess.ts) say what each may do; `admin` may
      // do anything (make dlq: KAFKA_USERNAME=admin KAFKA_PASSWORD=<secrets.json KAFKA_ADMIN_PASSWORD>)
      broker = await startKafkaBroker({
        dir: join(dir, 'kafka'),
        port,
        controllerPort,
        security: {
          users: { ...kafkaPasswords, admin: kafkaAdminPassword },
          superUsers: ['admin'],
          brokerPassword,
        },
      });
      await applyBusAccess(broker.brokers, broker.sasl!);
    } catch (err) {
      await broker?.stop();
      await redis?.stop();
      throw err;
    }
    writeFileSync(portFile, JSON.stringify({ port, controllerPort }));
    kafkaBrokers = broker.brokers;
  }
  /** A process's Kafka login, when the broker is the cluster's own (one it was given has its own users). */
  const kafkaLogin = (p: BusPrincipal): Record<string, string> =>
    broker ? { KAFKA_USERNAME: p, KAFKA_PASSWORD: kafkaPasswords[p] } : {};

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
    SUPPORT_GRPC_ADDR: grpc.support,
    IDENTITY_GRPC_URL: grpc.identity,
    NOTIFICATION_GRPC_URL: grpc.notification,
    KYC_GRPC_URL: grpc.kyc,
    KYC_HTTP_URL: `http://${kycHttp}`,
    LEDGER_GRPC_URL: grpc.ledger,
    INVESTMENT_GRPC_URL: grpc.investment,
    WITHDRAWAL_GRPC_URL: grpc.withdrawal,
    SUPPORT_GRPC_URL: grpc.support,
    WEB_DIST: join(root, 'web/dist'),
    ...options.env,
  };
  // mutual TLS between the processes: the platform CA and a certificate per service, generated at the
  // first start and kept in <dir>/mesh (each process's GRPC_TLS_DIR: <dir>/mesh/<service>)
  keptMeshCertificates(join(dir, 'mesh'));
  const procs = new Map<ProcessName, Supervised>();
  for (const name of names) {
    // the replicas of a service share its store (DATA_DIR), its certificate and its Kafka user
    const service = isGateway(name) ? 'gateway' : serviceOf(name);
    const env: Record<string, string> = {
      ...common,
      ...kafkaLogin(service),
      DATA_DIR: join(dir, isGateway(name) ? name : service),
      GRPC_TLS_DIR: join(dir, 'mesh', service),
      METRICS_PORT: String(metricsPort(name)),
    };
    if (!isGateway(name)) {
      env[`${service.toUpperCase()}_GRPC_ADDR`] = grpcAddress(name);
      if (service === 'kyc') env.KYC_HTTP_ADDR = kycHttpOf(name);
    }
    if (name === 'gateway-a') env.PORT = String(ports[0]);
    if (name === 'gateway-b') {
      env.PORT = String(ports[1]);
      env.APP_URL = `http://localhost:${ports[1]}`; // its own origin (socket.io and CSRF origin checks); emails link to :ports[0]
    }
    procs.set(name, {
      name,
      script: join(root, mains[service]),
      env,
      starts: 0,
      startedAt: 0,
      quickDeaths: 0,
      stopping: false,
      log: createWriteStream(join(logs, `${name}.log`), { flags: 'a', mode: 0o600 }),
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
    if (isGateway(name)) {
      const port = name === 'gateway-a' ? ports[0] : ports[1];
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
        return r.ok;
      } catch {
        return false;
      }
    }
    const [host, port] = grpcAddress(name).split(':');
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

  let kycFront: Front | undefined;
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
      await kycFront?.close();
      await stopGroup([...replicasOf('investment'), ...replicasOf('withdrawal')]);
      await stopGroup(
        (['identity', 'notification', 'kyc', 'ledger', 'support'] as const).flatMap(replicasOf),
      );
      for (const p of procs.values()) p.log.end();
      process.off('exit', orphanGuard);
      await broker?.stop();
      await redis?.stop();
    })());

  try {
    if (replicas > 1) kycFront = await startFront(kycHttp, replicasOf('kyc').map(kycHttpOf));
    // ledger first (investment and withdrawal call it), gateways last, one after the other: both are
    // members of the same six live-push consumer groups, and two members joining a group at once on a
    // loaded machine rebalance it back and forth (a JoinGroup parked at the coordinator holds up the
    // member's other requests on its connection until they time out) for minutes
    // a service's further replicas after its first is up: they join its consumer groups one at a time too
    const replicaGroups = (services: ServiceName[]): ProcessName[][] =>
      Array.from({ length: replicas }, (_, i) => services.map((s) => replicaName(s, i + 1)));
    for (const group of [
      ...replicaGroups(['identity', 'notification', 'ledger', 'kyc', 'support']),
      ...replicaGroups(['investment', 'withdrawal']),
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
    kafkaSasl: broker
      ? { mechanism: KAFKA_SASL_MECHANISM, username: 'admin', password: kafkaAdminPassword }
      : undefined,
    redisUrl,
    redis,
    admin: { email: secrets.ADMIN_EMAIL, password: secrets.ADMIN_PASSWORD },
    grpc,
    replicas,
    processes: names,
    replicasOf,
    grpcAddress,
    metricsUrl: (name) => `http://127.0.0.1:${metricsPort(name)}/metrics`,
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
    replicas: process.env.CLUSTER_REPLICAS ? Number(process.env.CLUSTER_REPLICAS) : undefined,
    redisUrl: process.env.REDIS_URL,
    log: say,
  });
  say(`Kafka at ${cluster.kafkaBrokers.join(',')}, Redis at ${redactRedisUrl(cluster.redisUrl)}`);
  say(`Meridian: ${cluster.urls[0]} and ${cluster.urls[1]} (two gateways, one product)`);
  say(
    `admin: ${cluster.admin.email} / ${cluster.admin.password}   (kept in ${join(cluster.dir, 'secrets.json')})`,
  );
  say(`emails: ${cluster.urls[0]}/api/dev/mailbox?to=EMAIL`);
  if (cluster.replicas > 1)
    say(
      `${cluster.replicas} processes of every service: ${SERVICES.map((s) => `${s} ${cluster.grpc[s]}`).join(', ')}`,
    );
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
