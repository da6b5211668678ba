import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { toast } from 'react-toastify';
import { afterEach, beforeAll, vi } from 'vitest';
import { preloadScreens } from '../app/router';
import { dropWaitingToasts } from '../ui/toast';
import { stopRenderedApps } from './render';

// findBy… and waitFor wait on their condition up to 5 s (the library's 1 s was exceeded by a render on a
// 2-core machine busy with the other projects' suites); they return as soon as the condition holds.
configure({ asyncUtilTimeout: 5_000 });

// The route screens are split into chunks loaded on demand; the specs render them synchronously.
beforeAll(preloadScreens);

afterEach(() => {
  cleanup();
  // a spec that froze or sped the clock leaves the next file (the same worker's modules) the real one
  vi.useRealTimers();
  // A request still in flight when a test ends must not toast into the next test's container.
  stopRenderedApps();
  dropWaitingToasts();
  toast.dismiss();
  toast.clearWaitingQueue();
});
