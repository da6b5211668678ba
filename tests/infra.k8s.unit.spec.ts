/**
 * infra/k8s cannot be applied here (no cluster): it is kept right by reading it. The kustomizations'
 * files exist; every Deployment's environment is one its service reads and passes its schema in
 * production; every secret or config map a pod names is defined in the base, written by an operator
 * from a resource of the base, or documented in infra/README.md as created out of band; MONGO_URL
 * always carries credentials; the event topics keep everything. tests/infra.kustomize.int.spec.ts
 * builds every kustomization with kustomize and checks the rendered output.
 */
import { describe, expect, it } from 'vitest';
import {
  DEPLOYABLES,
  EVENT_SERVICES,
  compiledEntry,
  SECRET_SAMPLES,
  filesUnder,
  readYamlDocs,
  schemaVerdict,
  shapeOf,
} from './infra.env.js';
import { REDIS_PERMISSIONS, REDIS_USER } from '../scripts/cluster/redis.js';
import {
  K8S,
  all,
  base,
  deployment,
  deployments,
  envOf,
  envVar,
  exists,
  isDir,
  kafka,
  kustomizationIn,
  kustomizations,
  mongo,
  of,
  operatorSecrets,
  referencedPaths,
  secretsSection,
} from './support/k8sManifests.js';

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
