/**
 * infra/docker cannot be built here (no container engine): its Dockerfiles are read against the
 * workspaces they must install and the manifests that run them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPLOYABLES, ROOT, compiledEntry, filesUnder, readText, readYamlDocs } from './infra.env.js';

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

  const stages = dockerfile.split(/^FROM /m).slice(1);
  const serverWorkspaces = workspaces.filter((w) => w !== 'web');

  it('compiles every workspace a server imports (all but web) with tsc in the build stage', () => {
    const build = stages.findIndex((s) => /^\S+ AS build\b/.test(s));
    expect(build, 'a stage named build').toBeGreaterThan(0);
    const shipped = copies(dockerfile, build)
      .filter((c) => !c.from)
      .flatMap((c) => c.src);
    expect(serverWorkspaces.filter((w) => !shipped.some((s) => w === s || w.startsWith(`${s}/`)))).toEqual(
      [],
    );
    expect(stages[build]).toMatch(/tsc -p infra\/docker\/tsconfig\.build\.json/);
    expect(stages[build]).toMatch(/node infra\/docker\/distLayout\.mjs/);
    const tsconfig = JSON.parse(readText('infra/docker/tsconfig.build.json')) as {
      compilerOptions: { noEmit?: boolean; outDir?: string };
      include: string[];
    };
    expect(tsconfig.compilerOptions.noEmit).toBe(false);
    expect(tsconfig.compilerOptions.outDir).toBe('../../build');
    const included = tsconfig.include.map((i) => i.replace(/^\.\.\/\.\.\//, ''));
    const compiles = (w: string) =>
      included.includes(`${w}/src`) ||
      included.includes(`${w}/gen`) ||
      (w.startsWith('services/') && included.includes('services/*/src'));
    expect(serverWorkspaces.filter((w) => !compiles(w))).toEqual([]);
  });

  it('runs compiled JavaScript with node: no TypeScript loader (tsx) and no TypeScript sources in the image', () => {
    const runtime = stages[stages.length - 1]!;
    expect(dockerfile).not.toMatch(/\btsx\b/);
    expect(runtime).toMatch(/^CMD \[.*"exec node [^"]*\\"\$TARGET\\""\]$/m);
    // the runtime stage takes the workspaces from the build stage, where their sources were removed
    const fromBuild = copies(dockerfile, stages.length - 1).filter((c) => c.from === 'build');
    for (const dir of ['node_modules', 'proto', 'services', 'gateway'])
      expect(fromBuild.map((c) => c.dest)).toContain(dir);
    expect(copies(dockerfile, stages.length - 1).filter((c) => !c.from)).toEqual([]);
    expect(dockerfile).toMatch(/rm -rf build proto\/gen services\/\*\/src gateway\/src/);
  });

  it('distLayout.mjs moves each workspace’s compiled code to dist and points its exports there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dist-layout-'));
    try {
      const write = (p: string, text: string) => {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), text);
      };
      write('package.json', JSON.stringify({ workspaces: ['lib', 'proto'] }));
      write(
        'lib/package.json',
        JSON.stringify({ exports: { '.': './src/main.ts', './domain/*': './src/domain/*.ts' } }),
      );
      write('proto/package.json', JSON.stringify({ exports: { './*': './gen/*.ts' } }));
      write('build/lib/src/main.js', 'export {};');
      write('build/lib/src/domain/a.js', 'export {};');
      write('build/proto/gen/x.js', 'export {};');
      execFileSync(process.execPath, [join(ROOT, 'infra/docker/distLayout.mjs'), dir]);
      expect(existsSync(join(dir, 'lib/dist/main.js'))).toBe(true);
      expect(existsSync(join(dir, 'lib/dist/domain/a.js'))).toBe(true);
      expect(existsSync(join(dir, 'proto/dist/x.js'))).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, 'lib/package.json'), 'utf8')).exports).toEqual({
        '.': './dist/main.js',
        './domain/*': './dist/domain/*.js',
      });
      expect(JSON.parse(readFileSync(join(dir, 'proto/package.json'), 'utf8')).exports).toEqual({
        './*': './dist/*.js',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every entry point the manifests and compose run is the compiled form of a source that exists', () => {
    for (const [name, , entry] of DEPLOYABLES) {
      expect(existsSync(join(ROOT, entry)), entry).toBe(true);
      expect(compiledEntry(entry), name).toMatch(/^(services\/[a-z]+|gateway)\/dist\/main\.js$/);
    }
  });

  it('every base image is a current Node LTS or pinned nginx, pinned by digest, with a comment naming the tag', () => {
    for (const f of ['infra/docker/Dockerfile', 'infra/docker/web.Dockerfile']) {
      const text = readText(f);
      const images = [
        ...[...text.matchAll(/^ARG NODE_IMAGE=(\S+)$/gm)].map((m) => m[1]!),
        ...[...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]!).filter((i) => !/^\$\{|^deps$/.test(i)),
      ];
      expect(images.length, f).toBeGreaterThan(0);
      for (const image of images) {
        const m = /^([a-z0-9./-]+):([\w.-]+)@sha256:[0-9a-f]{64}$/.exec(image);
        expect(m, `${f}: ${image} is not pinned by digest`).not.toBeNull();
        const [, repo, tag] = m!;
        expect(text, `${f}: no comment names the tag of ${image}`).toMatch(
          new RegExp(`^#.*${`${repo!.split('/').pop()}:${tag}`.replace(/[.]/g, '\\.')}`, 'm'),
        );
        if (repo === 'node') expect(Number(tag!.split('.')[0]), image).toBeOneOf([22, 24]);
      }
    }
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
    expect(deployments.length).toBe(8);
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
