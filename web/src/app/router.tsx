import { createBrowserRouter, createMemoryRouter, type RouteObject } from 'react-router-dom';
import { ForgotPage } from '../features/auth/ForgotPage';
import { LoginPage } from '../features/auth/LoginPage';
import { LoginWithCodePage } from '../features/auth/LoginWithCodePage';
import { RegisterPage } from '../features/auth/RegisterPage';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage';
import { VerifyPage } from '../features/auth/VerifyPage';
import { DashboardPage } from '../features/dashboard/DashboardPage';
import { Layout } from '../features/layout/Layout';
import { AboutPage } from '../features/marketing/AboutPage';
import { ContactPage } from '../features/marketing/ContactPage';
import { HierarchyPage } from '../features/marketing/HierarchyPage';
import { HomePage } from '../features/marketing/HomePage';
import { HowItWorksPage } from '../features/marketing/HowItWorksPage';
import { NotFoundPage } from '../features/marketing/NotFoundPage';
import { PlansPage } from '../features/marketing/PlansPage';
import { PrivacyPolicyPage } from '../features/marketing/PrivacyPolicyPage';
import { ProfilePage } from '../features/profile/ProfilePage';
import { SectionPlaceholder } from '../features/sections/SectionPlaceholder';
import { SECTION_ROUTES } from '../features/sections/sections';
import { RequireAdmin, RequireAuth, RequireLoggedOut } from './guards';

const sections = (admin: boolean): RouteObject[] =>
  SECTION_ROUTES.filter((s) => Boolean(s.admin) === admin).map((s) => ({
    path: s.path,
    element: <SectionPlaceholder title={s.title} summary={s.summary} />,
  }));

/** Every client route of spec §2. */
export const routes: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/plans', element: <PlansPage /> },
      { path: '/about', element: <AboutPage /> },
      { path: '/contact', element: <ContactPage /> },
      { path: '/how-it-works', element: <HowItWorksPage /> },
      { path: '/Hierarchy', element: <HierarchyPage /> },
      { path: '/privacy-policy', element: <PrivacyPolicyPage /> },
      { path: '/forgot', element: <ForgotPage /> },
      { path: '/resetPassword/:resetToken', element: <ResetPasswordPage /> },
      { path: '/loginWithCode/:email', element: <LoginWithCodePage /> },
      { path: '/verify/:verificationToken', element: <VerifyPage /> },
      {
        element: <RequireLoggedOut />,
        children: [
          { path: '/login', element: <LoginPage /> },
          { path: '/register', element: <RegisterPage /> },
        ],
      },
      {
        element: <RequireAuth />,
        children: [
          { path: '/dashboard', element: <DashboardPage /> },
          { path: '/user-profile', element: <ProfilePage /> },
          ...sections(false),
          { element: <RequireAdmin />, children: sections(true) },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export const createAppRouter = () => createBrowserRouter(routes);
export const createTestRouter = (initialEntries: string[]) => createMemoryRouter(routes, { initialEntries });
