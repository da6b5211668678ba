import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { createAppRouter } from './app/router';
import { makeStore } from './app/store';
import { appStarted } from './features/auth/authSlice';
import './styles/index.css';
import './styles/money.css';

const store = makeStore();
void store.dispatch(appStarted());
const router = createAppRouter();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>
  </StrictMode>,
);
