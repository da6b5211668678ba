import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { LoadingBlock } from '../../ui/Spinner';
import { toastsWanted } from '../../ui/toast';
import { ChatLauncher } from '../support/ChatLauncher';
import { Footer } from './Footer';
import { Navbar } from './Navbar';

const AppToasts = lazy(() => import('./AppToasts').then((m) => ({ default: m.AppToasts })));

/** The toast container, mounted (and react-toastify loaded) once something toasts. */
function OnDemandToasts() {
  const wanted = useSyncExternalStore(toastsWanted.subscribe, toastsWanted.get, toastsWanted.get);
  return wanted ? (
    <Suspense fallback={null}>
      <AppToasts />
    </Suspense>
  ) : null;
}

/**
 * While a screen's chunk loads: the navbar and footer stay, the main area keeps its height, and the
 * spinner only fades in after 300 ms (a fast load shows nothing rather than a flash).
 */
function ScreenLoading() {
  return (
    <div className="screen-loading">
      <LoadingBlock label="Loading…" />
    </div>
  );
}

export function Layout() {
  const { pathname } = useLocation();
  useEffect(() => {
    if (!navigator.userAgent.includes('jsdom')) window.scrollTo(0, 0);
  }, [pathname]);
  return (
    <div className="app-shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Navbar />
      <main id="main" className="app-main" tabIndex={-1}>
        <Suspense fallback={<ScreenLoading />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
      <ChatLauncher />
      <OnDemandToasts />
    </div>
  );
}
