import { useEffect } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { Bounce, ToastContainer } from 'react-toastify';
import { Footer } from './Footer';
import { Navbar } from './Navbar';

/** Toasts: top-right, 5000 ms, pause on hover and focus loss, drag to dismiss at 80 % (spec §9). */
export function AppToasts() {
  return (
    <ToastContainer
      position="top-right"
      autoClose={5000}
      pauseOnHover
      pauseOnFocusLoss
      draggable
      draggablePercent={80}
      closeOnClick={false}
      newestOnTop
      theme="light"
      transition={Bounce}
    />
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
        <Outlet />
      </main>
      <Footer />
      <AppToasts />
    </div>
  );
}
