/**
 * Configuration in one place: docs/CONVENTIONS.md's table of variables is what scripts/configDocs.ts writes
 * from the config schemas (no drift), every variable carries its one-line description, and product code
 * reads the environment only through the config modules.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BEGIN_MARKER,
  CONFIG_SCHEMAS,
  CONVENTIONS,
  END_MARKER,
  ROOT,
  configVariables,
  renderConventions,
} from '../scripts/configDocs.js';
import { benchEnvSchema } from '../bench/config.js';
import { testEnvSchema } from './helpers/testEnv.js';

const committed = () => readFileSync(join(ROOT, CONVENTIONS), 'utf8');

describe('docs/CONVENTIONS.md table of environment variables', () => {
  it('is what the config schemas generate (run make config-docs after changing a schema)', async () => {
    const text = committed();
    expect(text).toContain(BEGIN_MARKER);
    expect(text).toContain(END_MARKER);
    expect(await renderConventions(text)).toBe(text);
  });

  it('would be rewritten when a row drifts from its schema', async () => {
    const text = committed();
    const drifted = text.replace(/^\| WEB_DIST .*$/m, '| WEB_DIST | gateway | `dist` | somewhere else |');
    expect(drifted).not.toBe(text);
    const rendered = await renderConventions(drifted);
    expect(rendered).not.toBe(drifted);
    expect(rendered).toBe(text);
  });

  it('lists every variable of every config schema, each with a one-line description', () => {
    const variables = configVariables();
    const table = committed().slice(committed().indexOf(BEGIN_MARKER), committed().indexOf(END_MARKER));
    const rows = new Set([...table.matchAll(/^\| ([A-Z][A-Z0-9_]*) +\|/gm)].map((m) => m[1]));
    expect(CONFIG_SCHEMAS.length).toBeGreaterThanOrEqual(9);
    expect(variables.length).toBeGreaterThan(60);
    const undocumented = variables.filter((v) => !v.description?.trim()).map((v) => v.name);
    expect(undocumented, 'variables without .describe() in their schema').toEqual([]);
    const multiline = variables.filter((v) => v.description?.includes('\n')).map((v) => v.name);
    expect(multiline, 'descriptions over more than one line').toEqual([]);
    expect([...rows].sort()).toEqual(variables.map((v) => v.name).sort());
  });
});

/** Product sources: services/<svc>/src and gateway/src, without test code (specs, test kits, conformance suites). */
function productSources(): string[] {
  const roots = [
    'gateway/src',
    ...readdirSync(join(ROOT, 'services')).map((s) => `services/${s}/src`),
  ].filter((dir) => {
    try {
      return statSync(join(ROOT, dir)).isDirectory();
    } catch {
      return false;
    }
  });
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'testing') walk(path);
      } else if (
        /\.(ts|mts|js|mjs)$/.test(entry.name) &&
        !/\.spec\.tsx?$/.test(entry.name) &&
        !/\.conformance\.ts$/.test(entry.name) &&
        entry.name !== 'testStack.ts'
      ) {
        files.push(relative(ROOT, join(ROOT, path)));
      }
    }
  };
  for (const root of roots) walk(root);
  return files;
}

/** The config modules: the one place product code reads the environment (their schemas parse it). */
const CONFIG_MODULE = /^(services\/[a-z]+\/src\/config\.ts|gateway\/src\/config\.ts)$/;

/**
 * Product files that hand the whole environment to a parser (no variable read by name here): each entry says
 * which. A new file passing process.env on must parse it through a config module instead, or be listed here.
 */
const HANDS_ENV_ON: Record<string, string> = {
  'gateway/src/main.ts':
    'to registerMeshFromEnv and remotePersonalDataKeys (GRPC_TLS_DIR, the service token)',
  'services/platform/src/runtime.ts':
    'to createServiceRuntime, shutdownTimings and the mesh of a service program',
  'services/platform/src/app/relayThread.worker.ts': "to the relay thread's createServiceRuntime",
  'services/platform/src/tracing.ts': 'as the default of tracingRequested / startTracingFromEnv (OTEL_*)',
  'services/platform/src/logger.ts': 'as the default env of createLogger (LOG_LEVEL, NODE_ENV)',
  'services/platform/src/personalData.ts': 'as the default of internalServiceToken',
  'services/standalone/src/standalone.ts':
    "as startStandalone's default env, parsed by each service's schema",
  // sets kafkajs's own variable (its partitioner warning), reads none of ours
  'services/platform/src/adapters/eventBus.kafka.ts': 'KAFKAJS_NO_PARTITIONER_WARNING for kafkajs',
};

/** `process.env.NAME`, `process.env['NAME']`, `process.env?.NAME`, `const { NAME } = process.env`. */
const NAMED_READ = /process\.env\s*(\?\.|\.|\[)|\{[^}]*\}\s*=\s*process\.env\b/;
const KAFKAJS_KNOB = "process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';";

describe('product code reads the environment through the config modules', () => {
  const sources = productSources().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

  it('finds the product sources and their config modules', () => {
    expect(sources.length).toBeGreaterThan(100);
    const modules = sources.filter((s) => CONFIG_MODULE.test(s.file)).map((s) => s.file);
    expect(modules).toEqual(
      expect.arrayContaining([
        'gateway/src/config.ts',
        'services/platform/src/config.ts',
        'services/standalone/src/config.ts',
      ]),
    );
  });

  it('reads no variable by name from process.env outside the config modules', () => {
    const reads = sources
      .filter((s) => !CONFIG_MODULE.test(s.file))
      .flatMap(({ file, text }) =>
        text
          .split('\n')
          .map((line, i) => ({ line: line.trim(), at: `${file}:${i + 1}` }))
          .filter(({ line }) => NAMED_READ.test(line) && !/^(\/\/|\/\*|\*)/.test(line))
          .filter(
            ({ line, at }) =>
              !(at.startsWith('services/platform/src/adapters/eventBus.kafka.ts:') && line === KAFKAJS_KNOB),
          )
          .map(({ line, at }) => `${at}: ${line}`),
      );
    expect(
      reads,
      'read these through a config schema (services/*/src/config.ts, gateway/src/config.ts)',
    ).toEqual([]);
  });

  it('hands process.env on only from the config modules and the listed files', () => {
    const passing = sources
      .filter((s) => !CONFIG_MODULE.test(s.file) && /\bprocess\.env\b/.test(s.text))
      .map((s) => s.file)
      .sort();
    expect(passing).toEqual(Object.keys(HANDS_ENV_ON).sort());
  });

  it('the scan catches a named read', () => {
    expect(NAMED_READ.test("const port = process.env.PORT ?? '8080';")).toBe(true);
    expect(NAMED_READ.test("const port = process.env['PORT'];")).toBe(true);
    expect(NAMED_READ.test('const { PORT } = process.env;')).toBe(true);
    expect(NAMED_READ.test('createServiceRuntime(service, process.env);')).toBe(false);
  });
});

describe("the benchmarks' knobs", () => {
  const benchSources = readdirSync(join(ROOT, 'bench'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `bench/${f}`, text: readFileSync(join(ROOT, 'bench', f), 'utf8') }));

  it('are read through bench/config.ts alone', () => {
    const reads = benchSources
      .filter((s) => s.file !== 'bench/config.ts')
      .flatMap(({ file, text }) =>
        text
          .split('\n')
          .map((line, i) => ({ line: line.trim(), at: `${file}:${i + 1}` }))
          .filter(({ line }) => /process\.env(\?\.|\.)BENCH_|process\.env\[\s*name\s*\]/.test(line))
          .map(({ line, at }) => `${at}: ${line}`),
      );
    expect(reads, 'read BENCH_* with benchNumber / benchText (bench/config.ts)').toEqual([]);
  });

  it('each BENCH_* the bench names is in its schema, with a description', () => {
    const named = new Set(
      benchSources.flatMap((s) => [...s.text.matchAll(/\bBENCH_[A-Z0-9_]*[A-Z0-9]\b/g)].map((m) => m[0])),
    );
    const shape = benchEnvSchema.shape as Record<string, { description?: string }>;
    expect([...named].filter((k) => !(k in shape)).sort(), 'knobs missing from bench/config.ts').toEqual([]);
    expect(Object.keys(shape).filter((k) => !shape[k].description)).toEqual([]);
  });
});

describe("the test suites' own knobs (tests/helpers/testEnv.ts)", () => {
  it('each carries a description and a default or an unset meaning', () => {
    const shape = testEnvSchema.shape as Record<string, { description?: string }>;
    expect(Object.keys(shape).filter((k) => !shape[k].description)).toEqual([]);
    expect(testEnvSchema.parse({})).toMatchObject({ FUZZ_RUNS: 3, CHAOS_MINUTES: 2, FUZZ_TRACE: false });
  });

  it('refuses a value that is no count, naming the knob', () => {
    const result = testEnvSchema.safeParse({ FUZZ_RUNS: '0', CHAOS_MINUTES: 'soon' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path[0]).sort()).toEqual(['CHAOS_MINUTES', 'FUZZ_RUNS']);
  });

  it('are none of the product variables', () => {
    const product = new Set(configVariables().map((v) => v.name));
    expect(Object.keys(testEnvSchema.shape).filter((k) => product.has(k))).toEqual([]);
    expect(Object.keys(benchEnvSchema.shape).filter((k) => product.has(k))).toEqual([]);
  });
});
