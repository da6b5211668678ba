import { useEffect } from 'react';
import { Bounce, toast, ToastContainer } from 'react-toastify';
import { toastContainerMounted } from '../../ui/toast';

/** Toasts: top-right, 5000 ms, pause on hover and focus loss, drag to dismiss at 80 % (spec §9). */
export function AppToasts() {
  useEffect(() => toastContainerMounted(toast), []);
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
