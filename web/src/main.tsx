import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { BrowserRouter } from 'react-router-dom';
import { AppRoutes } from './app/router';
import { makeStore } from './app/store';
import { appStarted } from './features/auth/authSlice';
import './styles/base.css';
import './styles/components.css';
import './styles/forms.css';
import './styles/feedback.css';
import './styles/shell.css';
import './styles/marketing.css';
import './styles/account.css';
import './styles/responsive.css';
import './styles/money.css';
import './styles/money-admin.css';
import './styles/money-responsive.css';

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
