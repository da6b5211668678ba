import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { BrowserRouter } from 'react-router-dom';
import { AppRoutes } from './app/router';
import { makeStore } from './app/store';
import { appStarted } from './features/auth/authSlice';
import './styles/index.css';
import './styles/money.css';

const store = makeStore();
void store.dispatch(appStarted());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Provider store={store}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </Provider>
  </StrictMode>,
);
