import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { toast } from 'react-toastify';
import { afterEach } from 'vitest';
import { stopRenderedApps } from './render';

afterEach(() => {
  cleanup();
  // A request still in flight when a test ends must not toast into the next test's container.
  stopRenderedApps();
  toast.dismiss();
  toast.clearWaitingQueue();
});
