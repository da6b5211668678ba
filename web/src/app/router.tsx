import type { ComponentType, ReactNode } from 'react';
import { useRoutes, type RouteObject } from 'react-router-dom';
import { LoginPage } from '../features/auth/LoginPage';
import { Layout } from '../features/layout/Layout';
import { HomePage } from '../features/marketing/HomePage';
import { NotFoundPage } from '../features/marketing/NotFoundPage';
import { SECTION_ROUTES } from '../features/sections/sections';
import { RequireAdmin, RequireAuth, RequireLoggedOut } from './guards';
import { lazyPage, type LazyPage } from './lazyPage';

/** Every lazily split screen, for preloadScreens. */
const SCREEN_CHUNKS: Array<{ preload(): Promise<void> }> = [];

/**
 * Route-level splitting: the landing page, /login and the shell are in the entry chunk; every other screen
 * (money, KYC, admin queues, profile, the other marketing pages) is its own chunk (lazyPage, listed in
 * SCREEN_CHUNKS), loaded when its route first renders (Layout's Suspense keeps the navbar and footer while it
 * loads).
 */
function screen<P extends object>(load: () => Promise<ComponentType<P>>): LazyPage<P> {
  const page = lazyPage(load);
  SCREEN_CHUNKS.push(page);
  return page;
}

const ForgotPage = screen(() => import('../features/auth/ForgotPage').then((m) => m.ForgotPage));
const LoginWithCodePage = screen(() =>
  import('../features/auth/LoginWithCodePage').then((m) => m.LoginWithCodePage),
);
const RegisterPage = screen(() => import('../features/auth/RegisterPage').then((m) => m.RegisterPage));
const ResetPasswordPage = screen(() =>
  import('../features/auth/ResetPasswordPage').then((m) => m.ResetPasswordPage),
);
const VerifyPage = screen(() => import('../features/auth/VerifyPage').then((m) => m.VerifyPage));
const DashboardPage = screen(() =>
  import('../features/dashboard/DashboardPage').then((m) => m.DashboardPage),
);
const AboutPage = screen(() => import('../features/marketing/AboutPage').then((m) => m.AboutPage));
const ContactPage = screen(() => import('../features/marketing/ContactPage').then((m) => m.ContactPage));
const HierarchyPage = screen(() =>
  import('../features/marketing/HierarchyPage').then((m) => m.HierarchyPage),
);
const HowItWorksPage = screen(() =>
  import('../features/marketing/HowItWorksPage').then((m) => m.HowItWorksPage),
);
const PlansPage = screen(() => import('../features/marketing/PlansPage').then((m) => m.PlansPage));
const PrivacyPolicyPage = screen(() =>
  import('../features/marketing/PrivacyPolicyPage').then((m) => m.PrivacyPolicyPage),
);
const ProfilePage = screen(() => import('../features/profile/ProfilePage').then((m) => m.ProfilePage));
const EditBalancePage = screen(() =>
  import('../features/balances/EditBalancePage').then((m) => m.EditBalancePage),
);
const DepositPage = screen(() => import('../features/deposits/DepositPage').then((m) => m.DepositPage));
const PendingDepositsPage = screen(() =>
  import('../features/deposits/PendingDepositsPage').then((m) => m.PendingDepositsPage),
);
const TransactionPage = screen(() =>
  import('../features/deposits/TransactionPage').then((m) => m.TransactionPage),
);
const TransactionHistoryPage = screen(() =>
  import('../features/history/TransactionHistoryPage').then((m) => m.TransactionHistoryPage),
);
const InvestmentPage = screen(() =>
  import('../features/investments/InvestmentPage').then((m) => m.InvestmentPage),
);
const InvestStatusPage = screen(() =>
  import('../features/investments/InvestStatusPage').then((m) => m.InvestStatusPage),
);
const PendingInvestmentsPage = screen(() =>
  import('../features/investments/PendingInvestmentsPage').then((m) => m.PendingInvestmentsPage),
);
const StartInvestPage = screen(() =>
  import('../features/investments/StartInvestPage').then((m) => m.StartInvestPage),
);
const PendingKycPage = screen(() => import('../features/kyc/PendingKycPage').then((m) => m.PendingKycPage));
const UploadKycPage = screen(() => import('../features/kyc/UploadKycPage').then((m) => m.UploadKycPage));
const ReferralsPage = screen(() =>
  import('../features/referrals/ReferralsPage').then((m) => m.ReferralsPage),
);
const PendingWithdrawalsPage = screen(() =>
  import('../features/withdrawals/PendingWithdrawalsPage').then((m) => m.PendingWithdrawalsPage),
);
const WithdrawalPage = screen(() =>
  import('../features/withdrawals/WithdrawalPage').then((m) => m.WithdrawalPage),
);
const WithdrawPage = screen(() => import('../features/withdrawals/WithdrawPage').then((m) => m.WithdrawPage));
const AuditPage = screen(() => import('../features/audit/AuditPage').then((m) => m.AuditPage));
const SupportInboxPage = screen(() =>
  import('../features/support/SupportInboxPage').then((m) => m.SupportInboxPage),
);
const AddressBookPage = screen(() =>
  import('../features/support/AddressBookPage').then((m) => m.AddressBookPage),
);
const SectionPlaceholder = screen(() =>
  import('../features/sections/SectionPlaceholder').then((m) => m.SectionPlaceholder),
);

/** The money and KYC screens by their section path; a path not listed keeps the placeholder. */
const SCREENS: Record<string, ReactNode> = {
  '/deposit-payment': <DepositPage />,
  '/start-invest': <StartInvestPage />,
  '/invest-status': <InvestStatusPage />,
  '/investment/:investmentId': <InvestmentPage />,
  '/withdraw-wallet': <WithdrawPage />,
  '/withdrawal/:id': <WithdrawalPage />,
  '/referrals': <ReferralsPage />,
  '/transaction-History': <TransactionHistoryPage />,
  '/upload-kyc': <UploadKycPage />,
  '/transaction/:transactionId': <TransactionPage />,
  '/pending-kyc': <PendingKycPage />,
  '/admin-pending-wallet': <PendingWithdrawalsPage />,
  '/admin-pending-deposit': <PendingDepositsPage />,
  '/admin-pending-investment': <PendingInvestmentsPage />,
  '/edit-balance/:id': <EditBalancePage kind="profit" />,
  '/edit-user-balance/:id': <EditBalancePage kind="deposit" />,
  '/edit-investment-balance/:id': <EditBalancePage kind="investment" />,
};

const sections = (admin: boolean): RouteObject[] =>
  SECTION_ROUTES.filter((s) => Boolean(s.admin) === admin).map((s) => ({
    path: s.path,
    element: SCREENS[s.path] ?? <SectionPlaceholder path={s.path} />,
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
          { element: <RequireAdmin />, children: [{ path: '/admin/audit', element: <AuditPage /> }] },
          {
            element: <RequireAdmin />,
            children: [
              { path: '/support-inbox', element: <SupportInboxPage /> },
              { path: '/admin-deposit-addresses', element: <AddressBookPage /> },
            ],
          },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

/**
 * The route table, rendered inside a BrowserRouter (main.tsx) or a MemoryRouter (tests). The declarative
 * router: the app uses no loaders, actions or fetchers, and the data router would add ~17 KB of gzipped JS
 * to the first route.
 */
export function AppRoutes() {
  return useRoutes(routes);
}

/** Loads every lazily split screen (tests render any route synchronously after this). */
export async function preloadScreens(): Promise<void> {
  await Promise.all(SCREEN_CHUNKS.map((page) => page.preload()));
}
