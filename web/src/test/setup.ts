import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { toast } from 'react-toastify';
import { afterEach, beforeAll } from 'vitest';
import { preloadScreens } from '../app/router';
import { dropWaitingToasts } from '../ui/toast';
import { stopRenderedApps } from './render';

// The route screens are split into chunks loaded on demand; the specs render them synchronously.
beforeAll(preloadScreens);

afterEach(() => {
  cleanup();
  // A request still in flight when a test ends must not toast into the next test's container.
  stopRenderedApps();
  dropWaitingToasts();
  toast.dismiss();
  toast.clearWaitingQueue();
});
