#!/usr/bin/env node
// `make test`: static checks (proto drift, type-check, lint, Prettier format check), the SPA build the e2e suite needs,
// then every vitest project. Ends with the one line CI reads: "N passed, N failed, N skipped",
// counted over every test of every suite plus each static check.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reap } from './reap.mjs';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules/.bin', name);
const extraArgs = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function run(label, cmd, args, opts = {}) {
  const started = Date.now();
  process.stdout.write(`\n=== ${label}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  const ok = r.status === 0;
  console.log(`=== ${label}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return ok;
}

/**
 * Checks run side by side (each is one process that mostly computes alone: two at once keep both cores busy);
 * each one's output is shown whole when it ends, and counted as `check` counts it.
 */
async function checksTogether(list) {
  const results = await Promise.all(
    list.map(
      ({ label, cmd, args, opts = {} }) =>
        new Promise((resolve) => {
          const started = Date.now();
          const chunks = [];
          const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
          child.stdout.on('data', (c) => chunks.push(c));
          child.stderr.on('data', (c) => chunks.push(c));
          child.on('error', (err) => chunks.push(Buffer.from(`${err.message}\n`)));
          child.on('close', (code) =>
            resolve({
              label,
              ok: code === 0,
              output: Buffer.concat(chunks),
              seconds: (Date.now() - started) / 1000,
            }),
          );
        }),
    ),
  );
  for (const { label, ok, output, seconds } of results) {
    process.stdout.write(`\n=== ${label}\n`);
    process.stdout.write(output);
    console.log(`=== ${label}: ${ok ? 'ok' : 'FAILED'} (${seconds.toFixed(1)} s)`);
    tally(label, ok);
  }
}

/** A static check's verdict, counted in the final line. */
function tally(label, ok) {
  if (ok) passed += 1;
  else {
    failed += 1;
    failures.push(label);
  }
}

function check(label, cmd, args, opts) {
  tally(label, run(label, cmd, args, opts));
}

// 1. generated protobuf code is up to date
{
  const out = mkdtempSync(join(tmpdir(), 'meridian-proto-'));
  const gen = run('proto: regenerate into a temp dir', bin('buf'), ['generate', '-o', out], {
    cwd: join(root, 'proto'),
  });
  const same =
    gen &&
    run('proto: generated code matches proto/gen', 'diff', ['-r', join(out, 'gen'), join(root, 'proto/gen')]);
  tally('proto drift (run `make proto` and commit proto/gen)', same);
  rmSync(out, { recursive: true, force: true });
}

// 2. type-check and lint, two at a time
await checksTogether([
  { label: 'typecheck: servers', cmd: bin('tsc'), args: ['-p', 'tsconfig.json', '--noEmit'] },
  ...(existsSync(join(root, 'web/tsconfig.json'))
    ? [{ label: 'typecheck: web', cmd: bin('tsc'), args: ['-p', 'web/tsconfig.json', '--noEmit'] }]
    : []),
]);
await checksTogether([
  { label: 'lint', cmd: bin('eslint'), args: ['.', '--max-warnings=0'] },
  { label: 'format', cmd: bin('prettier'), args: ['--check', '.', '--log-level', 'warn'] },
]);

// 3. the SPA build (served by the standalone target in the e2e suite)
if (existsSync(join(root, 'web/vite.config.ts')))
  check('build: web', bin('vite'), ['build', '--logLevel', 'warn'], { cwd: join(root, 'web') });

// 4. every vitest project, one after another: server and web, the browser journeys (e2e), then the cluster
// project, on a machine no other suite is loading (each of its files starts a Kafka broker, eight service
// processes and two gateways)
mkdirSync(join(root, 'artifacts'), { recursive: true });
/**
 * A failure's message in a line or two for the summary CI shows last: its first line, and the first later
 * line that names an error (a spawned program's output follows the first line of a start-up failure).
 */
function cause(message = '') {
  // eslint-disable-next-line no-control-regex
  const lines = message.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const first = lines[0].trim();
  const named = lines
    .slice(1)
    .find((l) => /\b(Error|EADDRINUSE|ECONNREFUSED|failed to start)\b/.test(l) && !/^\s+at /.test(l));
  const clip = (l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l);
  return named ? `${clip(first)}\n      ${clip(named.trim())}` : clip(first);
}

const vitestArgs = (projects, report, workers) => [
  'run',
  ...projects.flatMap((p) => ['--project', p]),
  ...(workers ? [`--maxWorkers=${workers}`] : []),
  '--passWithNoTests',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...extraArgs,
];

/** Counts a finished vitest run from its JSON report (`ok`: vitest's own exit verdict). */
function count(label, report, ok, log) {
  if (!existsSync(report)) {
    failed += 1;
    failures.push(`${label}: vitest produced no report`);
    return;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  // a suite that failed outside its tests (it did not load, or a beforeAll/afterAll hook failed) counts as
  // one failure, even when every test it ran passed
  const brokenSuites = (r.testResults ?? []).filter(
    (s) => s.status === 'failed' && !(s.assertionResults ?? []).some((t) => t.status === 'failed'),
  );
  for (const s of brokenSuites)
    failures.push(`suite failed outside its tests: ${s.name}: ${cause(s.message)}`);
  failed += brokenSuites.length;
  // errors outside any test (an unhandled rejection) fail vitest's run: each such run counts one failure,
  // named from the log, even when tests failed too; and a run vitest calls failed is never all passed
  const errorsOutside = log ? unhandled(readFileSync(log, 'utf8')) : '';
  if (!ok && (errorsOutside || (r.numFailedTests === 0 && brokenSuites.length === 0))) {
    failed += 1;
    failures.push(
      `${label}: vitest failed outside its tests (full log: ${log?.slice(root.length)})${errorsOutside ? `\n      ${errorsOutside}` : ''}`,
    );
  }
  for (const s of r.testResults ?? [])
    for (const t of s.assertionResults ?? [])
      if (t.status === 'failed') failures.push(`${t.fullName}\n      ${cause(t.failureMessages?.[0])}`);
}

/**
 * What vitest printed about errors outside any test (an unhandled rejection, a worker that died): the block
 * under its "Unhandled Errors" banner, or else each error line with the line after it, a few at most.
 */
function unhandled(log) {
  // eslint-disable-next-line no-control-regex
  const lines = log.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const banner = lines.findIndex((l) => /⎯\s*Unhandled (Errors?|Rejection)/.test(l));
  if (banner >= 0) return lines.slice(banner, banner + 25).join('\n      ');
  if (!lines.some((l) => /^\s*Errors\s+\d+ errors?/.test(l))) return '';
  const errors = lines.flatMap((l, i) =>
    /^\s*(Error|TypeError|RangeError|\w+Error):|Worker exited|ERR_/.test(l)
      ? [`${l.trim()} ${lines[i + 1]?.trim() ?? ''}`]
      : [],
  );
  return errors.slice(0, 5).join('\n      ');
}

/** A vitest run in the foreground: its output shown as it comes and kept in `log` for the summary. */
async function vitest(label, projects, report, workers, log) {
  rmSync(report, { force: true });
  const started = Date.now();
  process.stdout.write(`\n=== ${label}\n`);
  const out = openSync(log, 'w');
  const child = spawn(bin('vitest'), vitestArgs(projects, report, workers), {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk) => {
      process.stdout.write(chunk);
      writeSync(out, chunk);
    });
  const ok = await new Promise((resolve) => child.on('close', (code) => resolve(code === 0)));
  closeSync(out);
  console.log(`=== ${label}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  count(label, report, ok, log);
}

// the server and web specs with more workers than cores: most of their time is spent waiting (timers,
// sockets, child processes), not computing
await vitest(
  'vitest: server and web projects',
  ['server', 'web'],
  join(root, 'artifacts/vitest.json'),
  4,
  join(root, 'artifacts/server-web.log'),
);
// the browser journeys after them, one file at a time: beside the server specs, or two journeys at once, the
// impersonation step of the account journey and the kill drills waited past their budgets on two cores
await vitest(
  'vitest: e2e project',
  ['e2e'],
  join(root, 'artifacts/vitest-e2e.json'),
  undefined,
  join(root, 'artifacts/e2e.log'),
);
await vitest(
  'vitest: cluster project',
  ['cluster'],
  join(root, 'artifacts/vitest-cluster.json'),
  undefined,
  join(root, 'artifacts/cluster.log'),
);

// processes a failed or killed test file left behind (brokers, cluster services): ended, and said
{
  const ended = reap(root.replace(/\/$/, ''));
  for (const { pid, cmd } of ended)
    console.log(`warning: ended a process the run left behind: ${pid} ${cmd}`);
}

if (failures.length) {
  console.log('\nFailures:');
  for (const f of failures) console.log(`  - ${f}`);
}
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
