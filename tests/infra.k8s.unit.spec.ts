/**
 * infra/k8s cannot be applied here (no cluster): it is kept right by reading it. The kustomizations'
 * files exist; every Deployment's environment is one its service reads and passes its schema in
 * production; every secret or config map a pod names is defined in the base, written by an operator
 * from a resource of the base, or documented in infra/README.md as created out of band; MONGO_URL
 * always carries credentials; the event topics keep everything. tests/infra.kustomize.int.spec.ts
 * builds every kustomization with kustomize and checks the rendered output.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEPLOYABLES,
  EVENT_SERVICES,
  compiledEntry,
  ROOT,
  SECRET_SAMPLES,
  filesUnder,
  readText,
  readYamlDocs,
  schemaVerdict,
  shapeOf,
} from './infra.env.js';
import { REDIS_PERMISSIONS, REDIS_USER } from '../scripts/cluster/redis.js';
import { BUS_PRINCIPALS, busAcls, type BusAcl } from '@meridian/platform/busAccess';
import { MESH_SERVICES, METHOD_CALLERS } from '@meridian/platform/grpc/callers';

const K8S = 'infra/k8s';
const kustomizations = filesUnder(K8S, /^kustomization\.ya?ml$/);
const exists = (p: string) => existsSync(join(ROOT, p));
const isDir = (p: string) => exists(p) && statSync(join(ROOT, p)).isDirectory();
const kustomizationIn = (dir: string) =>
  ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].map((f) => join(dir, f)).find(exists);

/** The files a kustomization names: resources, patches, generator inputs (repository-relative). */
function referencedPaths(file: string): Array<{ field: string; path: string }> {
  const k = readYamlDocs(file)[0]!.doc;
  const dir = dirname(file);
  const rel = (p: string) => normalize(join(dir, p));
  const out: Array<{ field: string; path: string }> = [];
  for (const r of k.resources ?? [])
    if (!/^[a-z]+:\/\//.test(r)) out.push({ field: 'resources', path: rel(r) });
  for (const p of k.patches ?? []) if (p.path) out.push({ field: 'patches', path: rel(p.path) });
  for (const p of k.patchesStrategicMerge ?? [])
    if (typeof p === 'string' && !p.includes('\n'))
      out.push({ field: 'patchesStrategicMerge', path: rel(p) });
  for (const g of [...(k.configMapGenerator ?? []), ...(k.secretGenerator ?? [])]) {
    for (const f of g.files ?? []) out.push({ field: 'files', path: rel(String(f).split('=').pop()!) });
    for (const e of g.envs ?? []) out.push({ field: 'envs', path: rel(e) });
  }
  return out;
}

/** Every YAML document reachable from a kustomization (resources, recursively), and its generators' names. */
function load(
  dir: string,
  seen = new Set<string>(),
): { docs: any[]; generated: { ConfigMap: Set<string>; Secret: Set<string> } } {
  const out = { docs: [] as any[], generated: { ConfigMap: new Set<string>(), Secret: new Set<string>() } };
  const file = kustomizationIn(dir);
  if (!file || seen.has(file)) return out;
  seen.add(file);
  const k = readYamlDocs(file)[0]!.doc;
  for (const g of k.configMapGenerator ?? []) out.generated.ConfigMap.add(g.name);
  for (const g of k.secretGenerator ?? []) out.generated.Secret.add(g.name);
  for (const { field, path } of referencedPaths(file)) {
    if (field !== 'resources') continue;
    if (isDir(path)) {
      const sub = load(path, seen);
      out.docs.push(...sub.docs);
      for (const kind of ['ConfigMap', 'Secret'] as const)
        for (const n of sub.generated[kind]) out.generated[kind].add(n);
    } else out.docs.push(...readYamlDocs(path).map((d) => d.doc));
  }
  return out;
}

const base = load(`${K8S}/base`);
const all = load(K8S);
const of = (kind: string, docs = base.docs) => docs.filter((d) => d.kind === kind);
const deployments = of('Deployment');
const kafka = of('Kafka')[0];
const mongo = of('MongoDBCommunity')[0];
const envOf = (d: any): any[] => d.spec.template.spec.containers.flatMap((c: any) => c.env ?? []);
const envVar = (d: any, name: string) => envOf(d).find((e) => e.name === name);
const deployment = (name: string) => deployments.find((d) => d.metadata.name === name)!;

/** The secret the MongoDB Community Operator writes for each user (connectionStringSecretName or <resource>-<db>-<user>). */
const operatorSecrets = new Map<string, string[]>([
  ...(mongo?.spec.users ?? []).map((u: any): [string, string[]] => [
    u.connectionStringSecretName ??
      `${mongo.metadata.name}-${u.db ?? 'admin'}-${u.name}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-'),
    ['connectionString.standard', 'connectionString.standardSrv', 'username', 'password'],
  ]),
  // Strimzi's User Operator writes a Secret named after each KafkaUser
  ...of('KafkaUser').map((u): [string, string[]] => [u.metadata.name, ['password', 'sasl.jaas.config']]),
]);

const readme = exists('infra/README.md') ? readText('infra/README.md') : '';
const secretsSection = /^## Secrets\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';

describe('infra/k8s kustomizations', () => {
  it('a root kustomization deploys the dev overlay or the base', () => {
    expect(kustomizations).toContain(`${K8S}/kustomization.yaml`);
    const root = readYamlDocs(`${K8S}/kustomization.yaml`)[0]!.doc;
    expect(root.resources.some((r: string) => ['overlays/dev', 'base'].includes(r.replace(/\/$/, '')))).toBe(
      true,
    );
  });

  it.each(kustomizations)('%s: every file it names exists (a directory holds a kustomization)', (file) => {
    const missing = referencedPaths(file)
      .filter(({ path }) => !exists(path) || (isDir(path) && !kustomizationIn(path)))
      .map(({ field, path }) => `${field}: ${path}`);
    expect(missing).toEqual([]);
  });

  it('every base manifest is listed in the base kustomization (none silently left out)', () => {
    const listed = new Set(referencedPaths(`${K8S}/base/kustomization.yaml`).map((r) => r.path));
    const files = filesUnder(`${K8S}/base`, /\.ya?ml$/).filter((f) => !/kustomization\.ya?ml$/.test(f));
    expect(files.filter((f) => !listed.has(f))).toEqual([]);
  });
});

describe('infra/k8s Deployments against the services config schemas', () => {
  const sample = (e: any): string | undefined => {
    if (e.value !== undefined) return String(e.value).replace(/\$\(([A-Z0-9_]+)\)/g, 'x');
    const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
    return ref ? SECRET_SAMPLES[ref.key] : undefined;
  };
  const byTarget = (entry: string) =>
    deployments.find((d) => envVar(d, 'TARGET')?.value === compiledEntry(entry));

  it.each(DEPLOYABLES)(
    '%s: runs in a Deployment whose image runs the entry point',
    (name, _schema, entry) => {
      const d = byTarget(entry);
      expect(d, `no Deployment runs ${compiledEntry(entry)}`).toBeDefined();
      expect(d.metadata.name).toBe(name);
      expect(d.spec.template.spec.containers[0].image).toMatch(/^meridian\/node:/);
      expect(exists(entry)).toBe(true);
    },
  );

  it.each(DEPLOYABLES)(
    "%s: sets only variables the service reads (TARGET is the image's; a secret composed into another as $(VAR))",
    (_name, schema, entry) => {
      const known = Object.keys(shapeOf(schema));
      const env = envOf(byTarget(entry));
      const composed = new Set(
        env.flatMap((e) => [...String(e.value ?? '').matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((m) => m[1])),
      );
      expect(
        env.map((e) => e.name).filter((n) => n !== 'TARGET' && !known.includes(n) && !composed.has(n)),
      ).toEqual([]);
    },
  );

  it('Redis: the gateway and identity log in as the ACL user with REDIS_PASSWORD from meridian-secrets', () => {
    const users = deployments.filter((d) => envVar(d, 'REDIS_URL'));
    expect(users.map((d) => d.metadata.name).sort()).toEqual(['gateway', 'identity']);
    for (const d of users) {
      const env = envOf(d);
      const i = env.findIndex((e) => e.name === 'REDIS_URL');
      expect(String(env[i].value), d.metadata.name).toBe('redis://meridian:$(REDIS_PASSWORD)@redis:6379');
      const j = env.findIndex((e) => e.name === 'REDIS_PASSWORD');
      expect(j, `${d.metadata.name}: REDIS_PASSWORD must be defined before REDIS_URL`).toBeGreaterThanOrEqual(
        0,
      );
      expect(j).toBeLessThan(i);
      expect(env[j].valueFrom?.secretKeyRef).toEqual({ name: 'meridian-secrets', key: 'REDIS_PASSWORD' });
    }
  });

  it('Redis: the default user is off, the password is the same secret, and an append-only file on a volume keeps sessions', () => {
    const redis = deployment('redis');
    const pod = redis.spec.template.spec;
    const c = pod.containers[0];
    const script = (c.command ?? []).join(' ');
    expect(script).toContain('user default off');
    expect(script).toContain(`user ${REDIS_USER} on #%s ${REDIS_PERMISSIONS}`);
    expect(script).toContain('$$(printf %s "$REDIS_PASSWORD" | sha256sum');
    expect(script).toMatch(/exec redis-server --aclfile \/data\/users\.acl --dir \/data --appendonly yes/);
    expect(envVar(redis, 'REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({
      name: 'meridian-secrets',
      key: 'REDIS_PASSWORD',
    });
    expect(c.readinessProbe.exec.command.join(' ')).toContain(`--user ${REDIS_USER}`);
    const mount = c.volumeMounts.find((m: any) => m.mountPath === '/data');
    const volume = pod.volumes.find((v: any) => v.name === mount.name);
    const claim = of('PersistentVolumeClaim').find(
      (p) => p.metadata.name === volume.persistentVolumeClaim?.claimName,
    );
    expect(claim, 'Redis keeps its data on a PersistentVolumeClaim of the base').toBeDefined();
    expect(redis.spec.replicas).toBe(1);
    expect(redis.spec.strategy?.type).toBe('Recreate');
  });

  it.each(DEPLOYABLES)(
    '%s: its values (secrets sampled) pass the schema in production',
    (_name, schema, entry) => {
      const env: Record<string, string> = {};
      for (const e of envOf(byTarget(entry))) {
        const v = sample(e);
        expect(v, `${e.name}: no value and no sample for its reference`).toBeDefined();
        env[e.name] = v!;
      }
      expect(env.NODE_ENV).toBe('production');
      expect(schemaVerdict(schema, env)).toBe('ok');
    },
  );

  it('every service with a store gets MONGO_URL, never a bare URL without credentials', () => {
    for (const name of EVENT_SERVICES) {
      const env = envOf(deployment(name));
      const i = env.findIndex((e) => e.name === 'MONGO_URL');
      expect(
        i,
        `${name} has no MONGO_URL (it would fall back to SQLite on a read-only filesystem)`,
      ).toBeGreaterThanOrEqual(0);
      const e = env[i];
      if (e.value !== undefined) {
        // built from our own secret: mongodb://$(USER):$(PASSWORD)@..., each variable defined before it
        expect(String(e.value), name).toMatch(/^mongodb(\+srv)?:\/\/[^/@\s]+:[^/@\s]+@/);
        for (const [, v] of String(e.value).matchAll(/\$\(([A-Z0-9_]+)\)/g)) {
          expect(
            env.slice(0, i).map((x) => x.name),
            `${name}: $(${v}) must be defined before MONGO_URL`,
          ).toContain(v);
        }
        expect(String(e.value)).toMatch(/authSource=/);
      } else {
        const ref = e.valueFrom?.secretKeyRef;
        expect(ref, `${name}: MONGO_URL comes from neither a value nor a secret`).toBeDefined();
        expect(
          operatorSecrets.has(ref.name),
          `${name}: ${ref.name} is not the operator's connection-string secret`,
        ).toBe(true);
        expect(['connectionString.standard', 'connectionString.standardSrv']).toContain(ref.key);
      }
    }
  });

  it('the MongoDB user the services log in as may read and write their databases (meridian_<service>)', () => {
    expect(mongo.spec.security.authentication.modes).toContain('SCRAM');
    const user = mongo.spec.users[0];
    expect(user.roles).toEqual(expect.arrayContaining([{ name: 'readWriteAnyDatabase', db: 'admin' }]));
    expect(user.db ?? 'admin').toBe('admin');
  });

  it('every gRPC / HTTP target, the Kafka bootstrap and Redis are Services of the base, on their ports', () => {
    const services = new Map(
      of('Service').map((s) => [s.metadata.name, (s.spec.ports ?? []).map((p: any) => p.port)]),
    );
    const bootstrap = `${kafka.metadata.name}-kafka-bootstrap`;
    const plain = kafka.spec.kafka.listeners.find((l: any) => l.tls === false).port;
    for (const d of deployments) {
      for (const e of envOf(d)) {
        if (typeof e.value !== 'string') continue;
        if (/_GRPC_URL$/.test(e.name)) {
          const [host, port] = e.value.replace(/^dns:\/\/\//, '').split(':');
          expect(services.get(host!), `${d.metadata.name} ${e.name}=${e.value}`).toContain(Number(port));
        } else if (e.name === 'KYC_HTTP_URL' || e.name === 'REDIS_URL') {
          const u = new URL(e.value);
          expect(services.get(u.hostname), `${d.metadata.name} ${e.name}=${e.value}`).toContain(
            Number(u.port),
          );
        } else if (e.name === 'KAFKA_BROKERS') {
          expect(e.value, d.metadata.name).toBe(`${bootstrap}:${plain}`);
        }
      }
    }
  });

  it('the gateway trusts exactly the one proxy in front of it (the ingress controller), and shares KYC_INTERNAL_TOKEN with kyc', () => {
    expect(envVar(deployment('gateway'), 'TRUST_PROXY')?.value).toBe('1');
    expect(envVar(deployment('gateway'), 'KYC_INTERNAL_TOKEN').valueFrom).toEqual(
      envVar(deployment('kyc'), 'KYC_INTERNAL_TOKEN').valueFrom,
    );
  });
});

describe('infra/k8s secrets and config maps', () => {
  /** Every (kind, name, key) a pod or an operator resource of any kustomization reads. */
  const references = (() => {
    const out: Array<{ kind: 'Secret' | 'ConfigMap'; name: string; key?: string; by: string }> = [];
    for (const d of of('Deployment', all.docs)) {
      for (const c of d.spec.template.spec.containers) {
        for (const e of c.env ?? []) {
          if (e.valueFrom?.secretKeyRef)
            out.push({ kind: 'Secret', ...e.valueFrom.secretKeyRef, by: `${d.metadata.name} ${e.name}` });
          if (e.valueFrom?.configMapKeyRef)
            out.push({
              kind: 'ConfigMap',
              ...e.valueFrom.configMapKeyRef,
              by: `${d.metadata.name} ${e.name}`,
            });
        }
        for (const e of c.envFrom ?? []) {
          if (e.secretRef)
            out.push({ kind: 'Secret', name: e.secretRef.name, by: `${d.metadata.name} envFrom` });
          if (e.configMapRef)
            out.push({ kind: 'ConfigMap', name: e.configMapRef.name, by: `${d.metadata.name} envFrom` });
        }
      }
    }
    for (const u of mongo.spec.users)
      out.push({
        kind: 'Secret',
        name: u.passwordSecretRef.name,
        key: u.passwordSecretRef.key ?? 'password',
        by: 'MongoDBCommunity user',
      });
    return out;
  })();

  it('each is defined in the base, written by an operator from a base resource, or documented in infra/README.md "Secrets"', () => {
    expect(secretsSection, 'infra/README.md has no "## Secrets" section').not.toBe('');
    const problems: string[] = [];
    for (const r of references) {
      const inTree = base.generated[r.kind].has(r.name) || of(r.kind).some((d) => d.metadata.name === r.name);
      if (inTree) continue;
      const byOperator = r.kind === 'Secret' ? operatorSecrets.get(r.name) : undefined;
      if (byOperator && r.key && !byOperator.includes(r.key))
        problems.push(`${r.by}: the operator's ${r.name} has no key ${r.key}`);
      if (!secretsSection.includes(`\`${r.name}\``))
        problems.push(`${r.by}: ${r.kind} ${r.name} is neither defined nor documented`);
      else if (r.key && !secretsSection.includes(`\`${r.key}\``))
        problems.push(`${r.by}: key ${r.key} of ${r.name} is not documented`);
    }
    expect(problems).toEqual([]);
  });

  it('a config map key a pod reads is one its generator or manifest defines', () => {
    const literals = new Map<string, Set<string>>();
    for (const file of kustomizations) {
      for (const g of readYamlDocs(file)[0]!.doc.configMapGenerator ?? []) {
        const keys = literals.get(g.name) ?? new Set<string>();
        for (const l of g.literals ?? []) keys.add(String(l).split('=')[0]!);
        literals.set(g.name, keys);
      }
    }
    for (const r of references.filter((x) => x.kind === 'ConfigMap' && x.key))
      expect(literals.get(r.name), r.by).toContain(r.key);
  });
});

describe('infra/k8s Kafka topics', () => {
  const topics = new Map(of('KafkaTopic').map((t) => [t.spec.topicName ?? t.metadata.name, t]));
  const DAY_MS = 24 * 60 * 60 * 1000;

  it.each(EVENT_SERVICES)(
    'meridian.%s.events keeps every event; its dead-letter topic keeps 30 days',
    (service) => {
      const events = topics.get(`meridian.${service}.events`);
      const dlq = topics.get(`meridian.${service}.events.dlq`);
      for (const [t, retention] of [
        [events, -1],
        [dlq, 30 * DAY_MS],
      ] as const) {
        expect(t, `no KafkaTopic for ${service}`).toBeDefined();
        expect(t.metadata.labels['strimzi.io/cluster']).toBe(kafka.metadata.name);
        expect(t.spec.partitions).toBe(3);
        expect(t.spec.replicas).toBe(kafka.spec.kafka.config['default.replication.factor']);
        expect(Number(t.spec.config['retention.ms'])).toBe(retention);
        expect(Number(t.spec.config['retention.bytes'] ?? -1)).toBe(-1);
      }
    },
  );

  it('declares what the Kafka bus adapter creates the topics with (compose has only the adapter)', async () => {
    const adapter: Record<string, unknown> =
      await import('../services/platform/src/adapters/eventBus.kafka.js');
    const entries = (name: string) => adapter[name] as Array<{ name: string; value: string }> | undefined;
    if (!entries('EVENT_TOPIC_CONFIG') || !entries('DEAD_LETTER_TOPIC_CONFIG')) {
      console.log(
        'adapter topic settings check skipped: eventBus.kafka.ts exports no EVENT_TOPIC_CONFIG / DEAD_LETTER_TOPIC_CONFIG',
      );
      return;
    }
    for (const [name, topic] of [
      ['EVENT_TOPIC_CONFIG', topics.get('meridian.identity.events')],
      ['DEAD_LETTER_TOPIC_CONFIG', topics.get('meridian.identity.events.dlq')],
    ] as const) {
      for (const { name: key, value } of entries(name)!)
        expect(String(topic.spec.config[key]), `${name} ${key}`).toBe(value);
    }
  });

  it('the broker creates no topic on first use, and has the replicas the topics ask for', () => {
    expect(kafka.spec.kafka.config['auto.create.topics.enable']).toBe(false);
    const brokers = of('KafkaNodePool')
      .filter(
        (p) =>
          p.metadata.labels['strimzi.io/cluster'] === kafka.metadata.name && p.spec.roles.includes('broker'),
      )
      .reduce((n, p) => n + p.spec.replicas, 0);
    for (const t of topics.values()) expect(t.spec.replicas).toBeLessThanOrEqual(brokers);
    expect(kafka.spec.entityOperator.topicOperator).toBeDefined();
  });
});

describe('infra/k8s edge: the Gateway API', () => {
  const socketClient = readText('web/src/features/live/live.saga.ts');
  const websocketOnly = /transports:\s*\[\s*('websocket'|WebSocket)\s*\]/.test(socketClient);

  it('a Gateway and an HTTPRoute (gateway.networking.k8s.io/v1) replace the Ingress', () => {
    expect(of('Ingress')).toEqual([]);
    const gateways = of('Gateway');
    expect(gateways.map((g) => g.apiVersion)).toEqual(['gateway.networking.k8s.io/v1']);
    const route = of('HTTPRoute').find((r) => r.metadata.name === 'meridian');
    expect(route.apiVersion).toBe('gateway.networking.k8s.io/v1');
    expect(route.spec.parentRefs.map((p: any) => p.name)).toEqual([gateways[0].metadata.name]);
    const backendOf = (path: string) =>
      route.spec.rules
        .filter((r: any) => r.matches.some((m: any) => m.path.type === 'PathPrefix' && m.path.value === path))
        .flatMap((r: any) => r.backendRefs.map((b: any) => `${b.name}:${b.port}`));
    expect(backendOf('/api')).toEqual(['gateway:8080']);
    expect(backendOf('/socket.io')).toEqual(['gateway:8080']);
    expect(backendOf('/')).toEqual(['web:8080']);
  });

  it('socket.io keeps each session on one gateway pod by the websocket transport alone: no Service affinity', () => {
    // the Gateway API (standard channel) has no session affinity: a browser that starts on HTTP
    // long-polling needs every request of the session on the same pod, which only the websocket
    // transport makes unnecessary (web/src/features/live/live.saga.ts)
    expect(websocketOnly).toBe(true);
    expect(of('Service').find((s) => s.metadata.name === 'gateway').spec.sessionAffinity).toBeUndefined();
    const gatewayScaled = of('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === 'gateway');
    expect(gatewayScaled.spec.minReplicas).toBeGreaterThan(1);
  });
});

describe('infra/k8s scaling: autoscalers, spreading, disruption budgets', () => {
  const stateless = deployments.filter((d) => d.metadata.name !== 'redis');

  it('every stateless Deployment (the gateway, every service, web) has an autoscaling/v2 HPA on CPU and no fixed replicas', () => {
    // every service keeps its state in MongoDB (its MONGO_URL), Kafka and Redis: none holds a local store here
    for (const d of stateless.filter((x) => envVar(x, 'TARGET')))
      expect(envVar(d, 'DATA_DIR'), d.metadata.name).toBeUndefined();
    expect(stateless.map((d) => d.metadata.name).sort()).toEqual(
      [...DEPLOYABLES.map(([n]) => n), 'web'].sort(),
    );
    for (const d of stateless) {
      const hpa = of('HorizontalPodAutoscaler').find(
        (h) => h.spec.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === d.metadata.name,
      );
      expect(hpa, `no HorizontalPodAutoscaler scales ${d.metadata.name}`).toBeDefined();
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
      expect(hpa.spec.metrics).toContainEqual(
        expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }),
      );
      // utilization is measured against the requests: every container must request CPU
      for (const c of d.spec.template.spec.containers)
        expect(c.resources?.requests?.cpu, `${d.metadata.name}/${c.name}`).toBeDefined();
      expect(d.spec.replicas, `${d.metadata.name}: the HPA owns the count`).toBeUndefined();
    }
  });

  it('Kafka, MongoDB and Redis pods have CPU and memory requests and limits', () => {
    const full = (r: any, what: string) => {
      for (const k of ['requests', 'limits'])
        for (const res of ['cpu', 'memory']) expect(r?.[k]?.[res], `${what} ${k}.${res}`).toBeDefined();
    };
    for (const pool of of('KafkaNodePool')) full(pool.spec.resources, `KafkaNodePool ${pool.metadata.name}`);
    const members = mongo.spec.statefulSet.spec.template.spec.containers;
    for (const name of ['mongod', 'mongodb-agent'])
      full(members.find((c: any) => c.name === name)?.resources, `MongoDB ${name}`);
    for (const c of deployment('redis').spec.template.spec.containers) full(c.resources, `redis/${c.name}`);
  });

  it('Redis has a PodDisruptionBudget: a drain does not evict the one pod holding the sessions', () => {
    const pdb = of('PodDisruptionBudget').find(
      (b) => b.spec.selector.matchLabels['app.kubernetes.io/name'] === 'redis',
    );
    expect(pdb).toBeDefined();
    expect(pdb.spec.minAvailable ?? 0).toBeGreaterThanOrEqual(deployment('redis').spec.replicas);
  });
});

describe('infra/k8s gRPC: headless Services and dns:/// targets', () => {
  it('every *_GRPC_URL is dns:///<service>:<port> of a headless Service (clusterIP: None)', () => {
    let targets = 0;
    for (const d of deployments)
      for (const e of envOf(d).filter((x) => /_GRPC_URL$/.test(x.name))) {
        targets++;
        const m = /^dns:\/\/\/([a-z-]+):(\d+)$/.exec(e.value);
        expect(m, `${d.metadata.name} ${e.name}=${e.value}`).not.toBeNull();
        const svc = of('Service').find((s) => s.metadata.name === m![1]);
        expect(svc.spec.clusterIP, `Service ${m![1]}`).toBe('None');
      }
    expect(targets).toBeGreaterThanOrEqual(MESH_SERVICES.length);
  });
});

describe('infra/k8s network policies: deny all, then the paths the system uses', () => {
  const policies = of('NetworkPolicy');
  const labelsOf = (name: string) => deployment(name).spec.template.metadata.labels as Record<string, string>;
  const selects = (selector: any, labels: Record<string, string>) =>
    Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
    (selector?.matchExpressions ?? []).every((x: any) =>
      x.operator === 'In'
        ? x.values.includes(labels[x.key])
        : x.operator === 'NotIn'
          ? !x.values.includes(labels[x.key])
          : false,
    );
  const portOf = (p: any) => p.port;
  /** Whether the policies let pod `from` reach pod `to` on `port` (both directions must allow it). */
  const allows = (from: string, to: string, port: number | string) => {
    const fromLabels = labelsOf(from);
    const toLabels = labelsOf(to);
    const ingress = policies
      .filter((p) => p.spec.policyTypes.includes('Ingress') && selects(p.spec.podSelector, toLabels))
      .some((p) =>
        (p.spec.ingress ?? []).some(
          (r: any) =>
            (r.ports ?? []).map(portOf).includes(port) &&
            (r.from ?? []).some(
              (f: any) => !f.namespaceSelector && f.podSelector && selects(f.podSelector, fromLabels),
            ),
        ),
      );
    const egress = policies
      .filter((p) => p.spec.policyTypes.includes('Egress') && selects(p.spec.podSelector, fromLabels))
      .some((p) =>
        (p.spec.egress ?? []).some(
          (r: any) =>
            (r.ports ?? []).map(portOf).includes(port) &&
            (r.to ?? []).some((t: any) => t.podSelector && selects(t.podSelector, toLabels)),
        ),
      );
    return ingress && egress;
  };
  const grpcPort = (service: string) =>
    Number(
      String(envVar(deployment(service), `${service.toUpperCase()}_GRPC_ADDR`).value)
        .split(':')
        .pop(),
    );
  /** service -> the processes the table of callers lets call one of its methods. */
  const callersOf = new Map<string, Set<string>>();
  for (const [fullName, methods] of Object.entries(METHOD_CALLERS)) {
    const server = fullName.split('.')[1]!;
    for (const callers of Object.values(methods))
      for (const c of Object.keys(callers))
        if (c !== server) (callersOf.get(server) ?? callersOf.set(server, new Set()).get(server)!).add(c);
  }

  it('default-deny selects every Meridian pod, for ingress and egress, and allows nothing itself', () => {
    const deny = policies.find((p) => p.metadata.name === 'default-deny');
    expect(deny.spec.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/part-of': 'meridian' } });
    expect([...deny.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    expect(deny.spec.ingress ?? []).toEqual([]);
    expect(deny.spec.egress ?? []).toEqual([]);
    for (const d of deployments)
      expect(d.spec.template.metadata.labels['app.kubernetes.io/part-of'], d.metadata.name).toBe('meridian');
  });

  it('gRPC: each service is reachable from exactly the processes the table of callers names', () => {
    const processes = MESH_SERVICES as readonly string[];
    expect([...callersOf.keys()].sort()).toEqual(processes.filter((p) => p !== 'gateway').sort());
    for (const [server, callers] of callersOf) {
      const port = grpcPort(server);
      for (const p of processes.filter((x) => x !== server))
        expect(allows(p, server, port), `${p} -> ${server}:${port}`).toBe(callers.has(p));
    }
    expect(allows('gateway', 'kyc', 50063)).toBe(true);
    expect(allows('ledger', 'kyc', 50063)).toBe(false);
  });

  it('every process reaches DNS, Kafka, MongoDB and Redis as its environment needs, and the edge reaches the gateway', () => {
    const egressTo = (from: string, match: (t: any) => boolean, port: number) =>
      policies.some(
        (p) =>
          p.spec.policyTypes.includes('Egress') &&
          selects(p.spec.podSelector, labelsOf(from)) &&
          (p.spec.egress ?? []).some(
            (r: any) => (r.ports ?? []).some((x: any) => x.port === port) && (r.to ?? []).some(match),
          ),
      );
    const kafkaPods = (t: any) => t.podSelector?.matchLabels?.['strimzi.io/cluster'] === kafka.metadata.name;
    const mongoPods = (t: any) => t.podSelector?.matchLabels?.app === `${mongo.metadata.name}-svc`;
    const dns = (t: any) => t.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns';
    for (const d of deployments) {
      const name = d.metadata.name;
      expect(egressTo(name, dns, 53), `${name} -> DNS`).toBe(true);
      if (envVar(d, 'KAFKA_BROKERS')) expect(egressTo(name, kafkaPods, 9092), `${name} -> Kafka`).toBe(true);
      if (envVar(d, 'MONGO_URL')) expect(egressTo(name, mongoPods, 27017), `${name} -> MongoDB`).toBe(true);
      if (envVar(d, 'REDIS_URL')) expect(allows(name, 'redis', 6379), `${name} -> Redis`).toBe(true);
      else if (name !== 'redis') expect(allows(name, 'redis', 6379), `${name} -> Redis`).toBe(false);
    }
    expect(
      egressTo('notification', (t) => t.ipBlock?.cidr === '0.0.0.0/0', 587),
      'notification -> the SMTP relay',
    ).toBe(true);
    const edge = policies.find((p) => p.metadata.name === 'gateway-from-edge');
    expect(edge.spec.ingress[0].from).toContainEqual({
      namespaceSelector: {},
      podSelector: {
        matchLabels: { 'gateway.networking.k8s.io/gateway-name': of('Gateway')[0].metadata.name },
      },
    });
    expect(allows('web', 'gateway', 8080)).toBe(true);
  });
});

describe('infra/k8s backups of MongoDB', () => {
  const jobs = of('CronJob');
  const job = (name: string) => jobs.find((j) => j.metadata.name === name);
  const script = (j: any) => j.spec.jobTemplate.spec.template.spec.containers[0].command.join(' ');
  const volumeOf = (j: any) =>
    j.spec.jobTemplate.spec.template.spec.volumes.find((v: any) => v.persistentVolumeClaim)
      ?.persistentVolumeClaim.claimName;

  it('a CronJob dumps every database (mongodump --archive --gzip) into a volume and deletes archives past the retention', () => {
    const backup = job('mongo-backup');
    expect(backup.spec.schedule).toBeTruthy();
    expect(backup.spec.concurrencyPolicy).toBe('Forbid');
    expect(script(backup)).toMatch(/mongodump --uri="\$MONGO_URL" --archive="[^"]+" --gzip/);
    expect(script(backup)).toMatch(/find \/backups .*-mtime \+"\$RETENTION_DAYS" .*-delete/);
    const env = backup.spec.jobTemplate.spec.template.spec.containers[0].env;
    expect(Number(env.find((e: any) => e.name === 'RETENTION_DAYS').value)).toBeGreaterThan(0);
    expect(of('PersistentVolumeClaim').map((p) => p.metadata.name)).toContain(volumeOf(backup));
  });

  it('the key vault (identity personal-data keys) is left out of it, with a job and a volume of its own', () => {
    // the collection identity's key vault lives in on MongoDB (personalDataKeys.store.ts, with the store's rm_ prefix)
    const vault = /export const PERSONAL_DATA_KEYS = '([^']+)'/.exec(
      readText('services/identity/src/adapters/personalDataKeys.store.ts'),
    )?.[1];
    expect(vault).toBeTruthy();
    const keysCollection = `meridian_identity.rm_${vault}`;
    expect(script(job('mongo-backup'))).toContain(`--nsExclude='${keysCollection}'`);
    const keys = job('mongo-keys-backup');
    expect(script(keys)).toContain(`--nsInclude='${keysCollection}'`);
    expect(volumeOf(keys)).not.toBe(volumeOf(job('mongo-backup')));
    expect(exists('docs/runbooks/mongodb-backup-restore.md')).toBe(true);
    expect(readText('docs/runbooks/mongodb-backup-restore.md')).toMatch(/mongorestore/);
  });
});

describe('infra/README.md', () => {
  it('says how to deploy and which operators the manifests need', () => {
    expect(readme).toContain('make up');
    expect(readme).toContain('kubectl apply -k infra/k8s/overlays/dev');
    const groups = new Set(base.docs.map((d) => String(d.apiVersion).split('/')[0]));
    if (groups.has('kafka.strimzi.io')) expect(readme).toMatch(/Strimzi/);
    if (groups.has('mongodbcommunity.mongodb.com')) expect(readme).toMatch(/MongoDB Community Operator/);
    if (of('Gateway').length > 0) expect(readme).toMatch(/Gateway API/);
    for (const t of of('KafkaTopic'))
      expect(readme).toContain(
        (t.spec.topicName ?? t.metadata.name).replace(/^meridian\.[a-z]+\./, 'meridian.<service>.'),
      );
  });
});

describe('infra/k8s mutual TLS between the pods (cert-manager)', () => {
  const certificates = of('Certificate');
  const issuers = of('Issuer');
  const certificateWriting = (secret: string) => certificates.find((c) => c.spec.secretName === secret);

  it('a CA Issuer signs with the Secret of a CA Certificate (ECDSA P-256)', () => {
    const mesh = issuers.find((i) => i.spec.ca);
    expect(mesh, 'no CA Issuer').toBeDefined();
    const ca = certificateWriting(mesh.spec.ca.secretName);
    expect(ca?.spec).toMatchObject({ isCA: true, privateKey: { algorithm: 'ECDSA', size: 256 } });
    expect(issuers.find((i) => i.metadata.name === ca.spec.issuerRef.name)).toBeDefined();
  });

  it.each(DEPLOYABLES)(
    '%s: GRPC_TLS_DIR is the read-only mount of the Secret of its own Certificate (CN and DNS name = its name, from the CA Issuer)',
    (name) => {
      const d = deployment(name);
      const dir = envVar(d, 'GRPC_TLS_DIR')?.value;
      expect(dir, `${name} sets no GRPC_TLS_DIR`).toMatch(/^\//);
      const mount = d.spec.template.spec.containers[0].volumeMounts.find((m: any) => m.mountPath === dir);
      expect(mount?.readOnly).toBe(true);
      const volume = d.spec.template.spec.volumes.find((v: any) => v.name === mount.name);
      // 288 = 0440: the key readable by the pod's group (fsGroup) only
      expect(volume.secret).toEqual({ secretName: `${name}-mesh-tls`, defaultMode: 288 });
      expect(d.spec.template.spec.securityContext).toMatchObject({ runAsUser: 10001, fsGroup: 10001 });
      const cert = certificateWriting(volume.secret.secretName);
      expect(cert?.spec).toMatchObject({
        commonName: name,
        dnsNames: [name],
        privateKey: { algorithm: 'ECDSA', size: 256 },
        issuerRef: { kind: 'Issuer', name: issuers.find((i) => i.spec.ca)?.metadata.name },
      });
      expect(cert.spec.usages).toEqual(expect.arrayContaining(['server auth', 'client auth']));
      // no other pod mounts it
      const others = deployments.filter(
        (o) =>
          o !== d &&
          (o.spec.template.spec.volumes ?? []).some((v: any) => v.secret?.secretName === `${name}-mesh-tls`),
      );
      expect(others).toEqual([]);
    },
  );

  it('a Certificate for every process of the table of callers, and infra/README.md names cert-manager', () => {
    expect(
      certificates
        .filter((c) => !c.spec.isCA)
        .map((c) => c.spec.commonName)
        .sort(),
    ).toEqual([...MESH_SERVICES].sort());
    expect(readme).toMatch(/cert-manager/);
  });
});

describe('infra/k8s Kafka users: only the owning service publishes on its topic', () => {
  it('kafka-users.yaml is what scripts/k8s/kafkaUsers.ts makes from busAccess.ts (one KafkaUser per principal)', async () => {
    const { kafkaUsersYaml } = await import('../scripts/k8s/kafkaUsers.js');
    const { format } = await import('prettier');
    const generated = await format(kafkaUsersYaml(kafka.metadata.name), { parser: 'yaml' });
    expect(readText(`${K8S}/base/kafka-users.yaml`)).toBe(generated);
    const users = of('KafkaUser');
    expect(users.map((u) => u.metadata.name).sort()).toEqual([...BUS_PRINCIPALS].sort());
    for (const u of users) {
      expect(u.spec.authentication.type).toBe('scram-sha-512');
      expect(u.spec.authorization.acls).toEqual(busAcls(u.metadata.name));
    }
  });

  it('the ledger topic is writable by the ledger alone; every user may read it', () => {
    const topic = 'meridian.ledger.events';
    const writes = (acls: BusAcl[], op: 'Write' | 'Read') =>
      acls.some(
        (a) =>
          a.resource.type === 'topic' &&
          a.operations.includes(op) &&
          (a.resource.patternType === 'literal'
            ? a.resource.name === topic
            : topic.startsWith(a.resource.name)),
      );
    const writers = of('KafkaUser').filter((u) => writes(u.spec.authorization.acls, 'Write'));
    expect(writers.map((u) => u.metadata.name)).toEqual(['ledger']);
    for (const u of of('KafkaUser')) expect(writes(u.spec.authorization.acls, 'Read')).toBe(true);
  });

  it('the broker asks every client to log in (SCRAM-SHA-512) and authorizes by ACL; the User Operator runs', () => {
    for (const l of kafka.spec.kafka.listeners) expect(l.authentication?.type).toBe('scram-sha-512');
    expect(kafka.spec.kafka.authorization?.type).toBe('simple');
    expect(kafka.spec.entityOperator.userOperator).toBeDefined();
  });

  it("each process logs in as its own user, with the password from that user's Secret", () => {
    for (const d of deployments.filter((x) => envVar(x, 'KAFKA_BROKERS'))) {
      const name = d.metadata.name;
      expect(envVar(d, 'KAFKA_USERNAME')?.value, name).toBe(name);
      expect(envVar(d, 'KAFKA_PASSWORD')?.valueFrom?.secretKeyRef, name).toEqual({ name, key: 'password' });
      expect(of('KafkaUser').some((u) => u.metadata.name === name)).toBe(true);
    }
  });
});
