/**
 * A real Apache Kafka broker (single KRaft node, broker + controller) from the official jars on Maven
 * Central, with no container engine: `make kafka` for the dev loop, `make test` for the Kafka suites and
 * the fault drills, `make cluster` for the production topology on one machine.
 *
 * - Jars: org.apache.kafka:kafka_2.13 (scripts/kafka/pom.xml) copied by Maven into .cache/kafka/libs-<version>
 *   (git-ignored; Maven's own cache ~/.m2 makes later runs offline).
 * - Storage: `<dir>/logs` formatted once with a cluster id kept in `<dir>/cluster.id`, so a restarted broker
 *   keeps its topics, offsets and committed consumer positions.
 * - Ready means it answers a kafkajs admin describeCluster and a group request (its group coordinator is
 *   loaded), not that a port is open.
 * - With `security` (make cluster): clients log in with SASL (SCRAM-SHA-512 users created when the log dir is
 *   formatted, or with the broker's ConfigCommand on a dir formatted without them), an authorizer allows only
 *   what ACLs say, and the broker's own controller and inter-broker connections log in as the PLAIN user
 *   `broker` (a super user: `broker.sasl` is its login, for the supervisor's admin calls).
 *
 * Run as a program: `tsx scripts/kafka/broker.ts [--dir data/kafka] [--port 9092]` starts it, prints
 * `KAFKA_BROKERS=127.0.0.1:<port>` and stops it cleanly on SIGINT/SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { freePort } from '@meridian/platform/util/freePort';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
export const KAFKA_VERSION = '4.1.1';

// The broker's callers pick their other ports with the same helper.
export { freePort };

export interface KafkaBrokerOptions {
  /** Where the broker keeps its log dirs, config, cluster id and broker.log (default: a fresh dir under .cache/kafka/run). */
  dir?: string;
  /** Client port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Controller port on 127.0.0.1 (default: a free one). */
  controllerPort?: number;
  /** Readiness deadline (default 90 s: a cold JVM on 2 cores). */
  readyTimeoutMs?: number;
  /** Extra server.properties lines. */
  properties?: Record<string, string | number>;
  /** SASL logins and an authorizer (none: a PLAINTEXT broker that lets anyone do anything). */
  security?: KafkaBrokerSecurity;
}

export interface KafkaBrokerSecurity {
  /** SCRAM-SHA-512 users, name -> password (URL-safe characters). */
  users: Record<string, string>;
  /** Users allowed everything besides the broker itself (an operator's admin); the others only what ACLs allow. */
  superUsers?: string[];
  /** Password of the broker's own PLAIN user `broker` (controller and inter-broker connections). */
  brokerPassword: string;
}

export interface KafkaBroker {
  /** `127.0.0.1:<port>`, for KAFKA_BROKERS. */
  readonly brokers: string[];
  /** With `security`: the broker's own login (a super user), for admin calls (topics, ACLs). */
  readonly sasl?: SASLOptions;
  readonly port: number;
  readonly dir: string;
  /** The JVM's pid (changes on restart). */
  pid(): number | undefined;
  /** SIGTERM and wait for a clean exit (SIGKILL after 30 s). */
  stop(): Promise<void>;
  /** SIGKILL: a crash. */
  kill(): Promise<void>;
  /** Starts the same broker again (same dir, ports, topics and offsets) and waits until it serves. */
  start(): Promise<void>;
}

/** Why a broker cannot run here, or null when Java and Maven are on PATH. */
export function kafkaUnavailableReason(): string | null {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0)
    return 'Java is not installed (need a JRE 17+ on PATH to run the Kafka broker)';
  if (!existsSync(libsDir()) || readdirSync(libsDir()).length === 0) {
    const mvn = spawnSync('mvn', ['-v'], { encoding: 'utf8' });
    if (mvn.error || mvn.status !== 0)
      return 'Maven is not installed (need mvn on PATH to fetch the Kafka jars from Maven Central)';
  }
  return null;
}

function libsDir(): string {
  return join(root, '.cache/kafka', `libs-${KAFKA_VERSION}`);
}

/** Resolves the broker's jars through Maven into .cache/kafka/libs-<version> (once). Returns the folder. */
export function ensureKafkaJars(): string {
  const libs = libsDir();
  if (existsSync(join(libs, `kafka_2.13-${KAFKA_VERSION}.jar`))) return libs;
  mkdirSync(libs, { recursive: true });
  const r = spawnSync(
    'mvn',
    [
      '-B',
      '-q',
      '-f',
      join(here, 'pom.xml'),
      `-Dkafka.version=${KAFKA_VERSION}`,
      'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies',
      `-DoutputDirectory=${libs}`,
      '-DincludeScope=runtime',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (r.error || r.status !== 0) {
    throw new Error(
      `could not resolve the Kafka jars with Maven: ${r.error?.message ?? ''}${r.stdout}${r.stderr}`.trim(),
    );
  }
  return libs;
}

/**
 * A 22-character base64url cluster id, as kafka-storage's random-uuid makes them: never starting with '-',
 * which the storage tool's argument parser would take for an option (1 in 64 random ids did).
 */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** Waits until a kafkajs admin can describe the cluster at `brokers` and its group coordinator answers. */
export async function waitForKafka(
  brokers: string[],
  timeoutMs: number,
  isAlive: () => boolean = () => true,
  sasl?: SASLOptions,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error('the Kafka broker exited before it served');
    const admin = new Kafka({
      clientId: 'meridian-broker-probe',
      brokers,
      sasl,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1_000,
      requestTimeout: 3_000,
      retry: { retries: 0 },
    }).admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller >= 0) {
        // and its group coordinator answers: the first group request creates __consumer_offsets, whose
        // partitions a cold broker loads for a while; consumers joining before that crash or time out
        await admin.fetchOffsets({ groupId: 'meridian-broker-probe' });
        return;
      }
    } catch (err) {
      last = err;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `the Kafka broker at ${brokers.join(',')} did not serve within ${timeoutMs} ms: ${String(last)}`,
  );
}

export async function startKafkaBroker(options: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
  const reason = kafkaUnavailableReason();
  if (reason) throw new Error(reason);
  const libs = ensureKafkaJars();
  const dir = resolve(
    options.dir ?? join(root, '.cache/kafka/run', `${Date.now()}-${randomBytes(3).toString('hex')}`),
  );
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const port = options.port ?? (await freePort());
  let controllerPort = options.controllerPort ?? (await freePort());
  while (controllerPort === port) controllerPort = await freePort();
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;

  const security = options.security;
  const props: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'inter.broker.listener.name': 'PLAINTEXT',
    ...(security ? securedListeners(port, controllerPort, security) : {}),
    'log.dirs': join(dir, 'logs'),
    'num.partitions': 3,
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.num.partitions': 1,
    'group.initial.rebalance.delay.ms': 0,
    'group.min.session.timeout.ms': 1000,
    'log.cleaner.dedupe.buffer.size': 16777216,
    // Kafka's default retention (7 days) stays the broker default, as on a production broker: the services
    // create their event topics with retention.ms=-1 themselves (and a test checks that they do).
    'auto.create.topics.enable': 'false',
    ...options.properties,
  };
  const config = join(dir, 'server.properties');
  writeFileSync(
    config,
    Object.entries(props)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
  );

  if (security) chmodSync(config, 0o600); // the broker's PLAIN password is in it
  const idFile = join(dir, 'cluster.id');
  if (!existsSync(idFile)) writeFileSync(idFile, newClusterId());
  const clusterId = readFileSync(idFile, 'utf8').trim();
  const classpath = `${libs}/*`;
  /** One of Kafka's command-line tools (a class on the broker's classpath), run to its end. */
  const kafkaTool = (tool: string, args: string[]) =>
    spawnSync(
      'java',
      ['-cp', classpath, `-Dlog4j2.configurationFile=${join(here, 'log4j2.properties')}`, tool, ...args],
      { encoding: 'utf8' },
    );
  // the SCRAM users as they were last created, by a hash (never the passwords)
  const usersFile = join(dir, 'scram-users.sha256');
  const usersHash = security
    ? createHash('sha256')
        .update(JSON.stringify(Object.entries(security.users).sort()))
        .digest('hex')
    : '';
  const formattedBefore = existsSync(join(dir, 'logs', 'meta.properties'));
  const format = kafkaTool('kafka.tools.StorageTool', [
    'format',
    '-t',
    clusterId,
    '-c',
    config,
    '--ignore-formatted',
    ...Object.entries(security?.users ?? {}).flatMap(([name, password]) => [
      '--add-scram',
      `SCRAM-SHA-512=[name=${name},password=${password}]`,
    ]),
  ]);
  if (format.status !== 0)
    throw new Error(`formatting the Kafka log dir failed: ${format.stdout}${format.stderr}`);
  if (security && !formattedBefore) writeFileSync(usersFile, usersHash);

  const brokers = [`127.0.0.1:${port}`];
  const sasl: SASLOptions | undefined = security
    ? { mechanism: 'plain', username: 'broker', password: security.brokerPassword }
    : undefined;
  let child: ChildProcess | undefined;
  let exited = true;

  const launch = async () => {
    const log = createWriteStream(join(dir, 'broker.log'), { flags: 'a' });
    const me = spawn(
      'java',
      [
        '-Xms256m',
        '-Xmx512m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-Djava.awt.headless=true',
        `-Dlog4j2.configurationFile=${join(here, 'log4j2.properties')}`,
        `-Dkafka.logs.dir=${dir}`,
        '-cp',
        classpath,
        'kafka.Kafka',
        config,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = me;
    exited = false;
    // never leave a broker behind this process (a test run that dies, Ctrl-C on make kafka)
    const orphanGuard = () => me.kill('SIGKILL');
    process.once('exit', orphanGuard);
    child.once('exit', () => process.off('exit', orphanGuard));
    me.stdout!.pipe(log);
    me.stderr!.pipe(log);
    me.once('exit', () => {
      if (child === me) exited = true;
    });
    try {
      await waitForKafka(brokers, readyTimeoutMs, () => !exited, sasl);
    } catch (err) {
      me.kill('SIGKILL');
      throw new Error(`${(err as Error).message} (log: ${join(dir, 'broker.log')})`);
    }
  };

  const waitExit = (c: ChildProcess, ms: number) =>
    new Promise<boolean>((res) => {
      if (c.exitCode !== null || c.signalCode !== null) return res(true);
      const t = setTimeout(() => res(false), ms);
      c.once('exit', () => {
        clearTimeout(t);
        res(true);
      });
    });

  const broker: KafkaBroker = {
    brokers,
    sasl,
    port,
    dir,
    pid: () => (exited ? undefined : child?.pid),
    async stop() {
      const c = child;
      if (!c || exited) return;
      c.kill('SIGTERM');
      if (!(await waitExit(c, 30_000))) {
        c.kill('SIGKILL');
        await waitExit(c, 10_000);
      }
    },
    async kill() {
      const c = child;
      if (!c || exited) return;
      c.kill('SIGKILL');
      await waitExit(c, 10_000);
    },
    async start() {
      if (!exited) return;
      await launch();
    },
  };
  await launch();
  const usersMade = existsSync(usersFile) ? readFileSync(usersFile, 'utf8') : '';
  if (security && usersMade !== usersHash) {
    // a log dir formatted before these users (or with other passwords): create them through the broker
    const commandConfig = join(dir, 'admin.properties');
    writeFileSync(
      commandConfig,
      [
        'security.protocol=SASL_PLAINTEXT',
        'sasl.mechanism=PLAIN',
        `sasl.jaas.config=${plainJaas(security.brokerPassword, false)}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    try {
      for (const [name, password] of Object.entries(security.users)) {
        const r = kafkaTool('kafka.admin.ConfigCommand', [
          ...['--bootstrap-server', brokers[0]!, '--command-config', commandConfig],
          ...['--alter', '--entity-type', 'users', '--entity-name', name],
          ...['--add-config', `SCRAM-SHA-512=[password=${password}]`],
        ]);
        if (r.status !== 0) {
          await broker.stop();
          throw new Error(`creating the Kafka user ${name} failed: ${r.stdout}${r.stderr}`);
        }
      }
    } finally {
      rmSync(commandConfig, { force: true });
    }
    writeFileSync(usersFile, usersHash);
  }
  return broker;
}

/** PlainLoginModule's JAAS line for the user `broker` (with `serve`, also the password the server checks). */
function plainJaas(password: string, serve: boolean): string {
  return `org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="${password}"${serve ? ` user_broker="${password}"` : ''};`;
}

/**
 * server.properties of a broker whose clients log in: SASL_PLAINTEXT on the client port (SCRAM-SHA-512 for the
 * platform's users, PLAIN for the broker itself), PLAIN on the controller port, KRaft's StandardAuthorizer, and
 * nothing allowed that no ACL allows.
 */
function securedListeners(
  port: number,
  controllerPort: number,
  security: KafkaBrokerSecurity,
): Record<string, string> {
  const jaas = plainJaas(security.brokerPassword, true);
  return {
    listeners: `SASL_PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `SASL_PLAINTEXT://127.0.0.1:${port}`,
    'listener.security.protocol.map': 'CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    'inter.broker.listener.name': 'SASL_PLAINTEXT',
    'sasl.mechanism.inter.broker.protocol': 'PLAIN',
    'sasl.mechanism.controller.protocol': 'PLAIN',
    'listener.name.controller.sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.controller.plain.sasl.jaas.config': jaas,
    'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config': jaas,
    'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config':
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users': ['broker', ...(security.superUsers ?? [])].map((u) => `User:${u}`).join(';'),
    'allow.everyone.if.no.acl.found': 'false',
  };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const reason = kafkaUnavailableReason();
  if (reason) {
    process.stderr.write(`make kafka: ${reason}\n`);
    process.exit(1);
  }
  const dir = resolve(arg('dir') ?? process.env.KAFKA_DIR ?? join(root, 'data/kafka'));
  const requested = Number(arg('port') ?? process.env.KAFKA_PORT ?? 9092);
  process.stdout.write(`starting Apache Kafka ${KAFKA_VERSION} (KRaft, one node) in ${dir} ...\n`);
  const broker = await startKafkaBroker({ dir, port: requested });
  process.stdout.write(`KAFKA_BROKERS=${broker.brokers.join(',')}\n`);
  process.stdout.write(`log: ${join(dir, 'broker.log')}   (Ctrl-C stops it)\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping the broker ...\n`);
    await broker.stop();
    process.stdout.write('broker stopped\n');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`make kafka: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
