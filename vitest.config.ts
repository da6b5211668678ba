import { defineConfig } from 'vitest/config';

// One test run for the whole repository, in projects:
//   server: unit + integration specs of services, gateway and repo-level tests (node)
//   web:    the SPA's component and saga specs (jsdom), configured in web/vitest.config.ts
//   e2e:    headless Chromium journeys against the standalone target
//   cluster: the suites that start the whole production topology (a Kafka broker, every service its own process,
//            two gateways): `make test` runs them after the others, on a machine no other suite is loading, so
//            eight processes and a broker start within their readiness budget
const CLUSTER = ['tests/cluster/**/*.int.spec.ts', 'tests/e2e/**/*.cluster.e2e.spec.ts'];
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          environment: 'node',
          include: [
            'services/*/src/**/*.{unit,int}.spec.ts',
            'gateway/src/**/*.{unit,int}.spec.ts',
            'tests/**/*.{unit,int}.spec.ts',
          ],
          exclude: ['**/node_modules/**', ...CLUSTER],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // the files a worker runs share its modules (each file importing the platform and a composition
          // again was most of the project's time): a spec leaves no global state behind (it stops what it
          // starts, restores what it replaces) and asserts the process's metrics as differences
          isolate: false,
          env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
        },
      },
      'web/vitest.config.ts',
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.e2e.spec.ts'],
          exclude: ['**/node_modules/**', ...CLUSTER],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
        },
      },
      {
        test: {
          name: 'cluster',
          environment: 'node',
          include: CLUSTER,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
        },
      },
    ],
  },
});
