/**
 * infra/k8s read as YAML, the cluster's edge and what runs inside it: the Gateway API, autoscalers and
 * disruption budgets, headless gRPC Services, network policies, MongoDB backups, mutual TLS and the Kafka
 * users. The kustomizations, environments, secrets and topics are checked in tests/infra.k8s.unit.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { DEPLOYABLES, readText } from './infra.env.js';
import { BUS_PRINCIPALS, busAcls, type BusAcl } from '@meridian/platform/busAccess';
import { MESH_SERVICES, METHOD_CALLERS } from '@meridian/platform/grpc/callers';
import {
  K8S,
  base,
  deployment,
  deployments,
  envOf,
  envVar,
  exists,
  kafka,
  mongo,
  of,
  readme,
} from './support/k8sManifests.js';

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
  /** Whether a policy of `type` that selects the pods labelled `labels` has a rule on `port` that `admits`. */
  const policyAllows = (
    type: 'Ingress' | 'Egress',
    labels: Record<string, string>,
    port: number | string,
    admits: (rule: any) => boolean,
  ) =>
    policies
      .filter((p) => p.spec.policyTypes.includes(type) && selects(p.spec.podSelector, labels))
      .some((p) =>
        ((type === 'Ingress' ? p.spec.ingress : p.spec.egress) ?? []).some(
          (r: any) => (r.ports ?? []).map(portOf).includes(port) && admits(r),
        ),
      );
  /** Whether the policies let pod `from` reach pod `to` on `port` (both directions must allow it). */
  const allows = (from: string, to: string, port: number | string) => {
    const fromLabels = labelsOf(from);
    const toLabels = labelsOf(to);
    const ingress = policyAllows('Ingress', toLabels, port, (r) =>
      (r.from ?? []).some(
        (f: any) => !f.namespaceSelector && f.podSelector && selects(f.podSelector, fromLabels),
      ),
    );
    const egress = policyAllows('Egress', fromLabels, port, (r) =>
      (r.to ?? []).some((t: any) => t.podSelector && selects(t.podSelector, toLabels)),
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
