import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));
/** The one live-push contract, the gateway's (gateway/src/live/pushContract.ts says why). */
const pushContract = fileURLToPath(new URL('../gateway/src/live/pushContract.ts', import.meta.url));

export default defineProject({
  root,
  resolve: { alias: { '#push-contract': pushContract } },
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.{unit,int}.spec.{ts,tsx}'],
    setupFiles: ['./src/test/setup.ts'],
    restoreMocks: true,
    // the files a worker runs share its modules (src/test/setup.ts puts the real timers back after each test)
    isolate: false,
    // a spec waits on several conditions, each up to 5 s under load (src/test/setup.ts asyncUtilTimeout); the
    // default 5 s for the whole spec ran out first on the busy CI machine
    testTimeout: 20_000,
    env: { NODE_ENV: 'test' },
  },
});
