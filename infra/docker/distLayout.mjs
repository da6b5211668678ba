/**
 * The image's build stage, after `tsc -p infra/docker/tsconfig.build.json` has compiled every server
 * workspace into build/<workspace>/<src or gen>: moves each workspace's JavaScript to <workspace>/dist
 * and points its package.json "exports" there (./src/x.ts and ./gen/x.ts become ./dist/x.js), so
 * `node services/ledger/dist/main.js` and every `@meridian/...` import it makes run compiled code,
 * without a TypeScript loader. Usage: node infra/docker/distLayout.mjs [root] (default: the current folder).
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? process.cwd();
const build = join(root, 'build');

/** './src/main.ts' → './dist/main.js'; './gen/*.ts' → './dist/*.js'. */
const compiled = (target) => target.replace(/^\.\/(src|gen)\//, './dist/').replace(/\.ts$/, '.js');

const mapExports = (value) =>
  typeof value === 'string'
    ? compiled(value)
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapExports(v)]));

const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let moved = 0;
for (const ws of workspaces) {
  const from = ['src', 'gen'].map((d) => join(build, ws, d)).find(existsSync);
  if (!from) continue;
  const dist = join(root, ws, 'dist');
  rmSync(dist, { recursive: true, force: true });
  renameSync(from, dist);
  const file = join(root, ws, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (pkg.exports) pkg.exports = mapExports(pkg.exports);
  delete pkg.scripts;
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  moved++;
}
if (moved === 0) throw new Error(`no compiled workspace under ${build}`);
console.log(`compiled JavaScript of ${moved} workspaces in <workspace>/dist`);
