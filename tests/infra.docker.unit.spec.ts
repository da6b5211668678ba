/**
 * infra/docker cannot be built here (no container engine): its Dockerfiles are read against the
 * workspaces they must install and the manifests that run them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, filesUnder, readText, readYamlDocs } from './infra.env.js';

const workspaces = (JSON.parse(readText('package.json')) as { workspaces: string[] }).workspaces;

/** Destinations of the COPY instructions of one build stage (0 = first FROM). */
function copies(dockerfile: string, stage: number): Array<{ from?: string; src: string[]; dest: string }> {
  const stages = dockerfile.split(/^FROM /m).slice(1);
  return stages[stage]!.split('\n')
    .filter((l) => l.startsWith('COPY '))
    .map((l) => {
      const words = l.slice(5).trim().split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice(7);
      const rest = words.filter((w) => !w.startsWith('--'));
      return { from, src: rest.slice(0, -1), dest: rest[rest.length - 1]! };
    });
}

describe('infra/docker/Dockerfile (every Node deployable)', () => {
  const dockerfile = readText('infra/docker/Dockerfile');

  it('installs the dependencies of every workspace: npm ci only links and installs a workspace whose package.json it sees', () => {
    const copied = copies(dockerfile, 0).flatMap((c) => c.src);
    const missing = workspaces.filter((w) => !copied.includes(`${w}/package.json`));
    expect(missing).toEqual([]);
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json']));
  });

  it('ships the sources of every workspace a server imports (all but web)', () => {
    const shipped = copies(dockerfile, 1)
      .filter((c) => !c.from)
      .flatMap((c) => c.src);
    const missing = workspaces.filter(
      (w) => w !== 'web' && !shipped.some((s) => w === s || w.startsWith(`${s}/`)),
    );
    expect(missing).toEqual([]);
  });

  it('runs as the uid the Kubernetes pods run as, and exposes every port the manifests use', () => {
    const user = /^USER (\d+)(?::\d+)?$/m.exec(dockerfile)?.[1];
    expect(user, 'USER must be numeric (runAsNonRoot checks it)').toBeDefined();
    const exposed = (/^EXPOSE (.+)$/m.exec(dockerfile)?.[1] ?? '').split(/\s+/).map(Number);
    const deployments = filesUnder('infra/k8s/base', /\.ya?ml$/)
      .flatMap((f) => readYamlDocs(f))
      .map((d) => d.doc)
      .filter(
        (d) =>
          d.kind === 'Deployment' && d.spec.template.spec.containers[0].image.startsWith('meridian/node'),
      );
    expect(deployments.length).toBe(7);
    for (const d of deployments) {
      expect(String(d.spec.template.spec.securityContext?.runAsUser), d.metadata.name).toBe(user);
      for (const p of d.spec.template.spec.containers[0].ports ?? [])
        expect(exposed, `${d.metadata.name} ${p.containerPort}`).toContain(p.containerPort);
    }
  });

  it('leaves host node_modules, the .env of compose secrets and the stores and their backups out of the build context', () => {
    for (const f of ['infra/docker/Dockerfile.dockerignore', 'infra/docker/web.Dockerfile.dockerignore']) {
      const lines = readText(f)
        .split('\n')
        .map((l) => l.trim());
      expect(lines, f).toEqual(expect.arrayContaining(['**/node_modules', '.env', 'data', 'backups']));
      expect(existsSync(join(ROOT, f.replace(/\.dockerignore$/, '')))).toBe(true);
    }
  });
});

describe('infra/docker/web.Dockerfile (the SPA on nginx)', () => {
  it('sees every workspace package.json, so the lockfile matches the workspaces npm ci finds', () => {
    const copied = copies(readText('infra/docker/web.Dockerfile'), 0).flatMap((c) => c.src);
    expect(workspaces.filter((w) => !copied.includes(`${w}/package.json`))).toEqual([]);
  });

  it('runs nginx unprivileged as the uid the web pods run as, on the port they expose', () => {
    const dockerfile = readText('infra/docker/web.Dockerfile');
    const final = dockerfile.split(/^FROM /m).pop()!;
    expect(final).toMatch(/^nginxinc\/nginx-unprivileged:/);
    const user = /^USER (\d+)(?::\d+)?$/m.exec(final)?.[1];
    expect(user, 'USER must be numeric and not 0').toMatch(/^[1-9]\d*$/);
    const web = readYamlDocs('infra/k8s/base/web.yaml').find((d) => d.doc.kind === 'Deployment')!.doc;
    expect(String(web.spec.template.spec.securityContext.runAsUser)).toBe(user);
    expect(web.spec.template.spec.containers[0].ports[0].containerPort).toBe(
      Number(/^EXPOSE (\d+)/m.exec(final)?.[1]),
    );
    expect(readText('infra/docker/nginx.conf')).toMatch(/listen 8080;/);
  });
});
