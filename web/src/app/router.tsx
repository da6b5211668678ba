import type { ReactNode } from 'react';
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
import { EditBalancePage } from '../features/balances/EditBalancePage';
import { DepositPage } from '../features/deposits/DepositPage';
import { PendingDepositsPage } from '../features/deposits/PendingDepositsPage';
import { TransactionPage } from '../features/deposits/TransactionPage';
import { TransactionHistoryPage } from '../features/history/TransactionHistoryPage';
import { InvestmentPage } from '../features/investments/InvestmentPage';
import { InvestStatusPage } from '../features/investments/InvestStatusPage';
import { PendingInvestmentsPage } from '../features/investments/PendingInvestmentsPage';
import { StartInvestPage } from '../features/investments/StartInvestPage';
import { PendingKycPage } from '../features/kyc/PendingKycPage';
import { UploadKycPage } from '../features/kyc/UploadKycPage';
import { ReferralsPage } from '../features/referrals/ReferralsPage';
import { PendingWithdrawalsPage } from '../features/withdrawals/PendingWithdrawalsPage';
import { WithdrawalPage } from '../features/withdrawals/WithdrawalPage';
import { WithdrawPage } from '../features/withdrawals/WithdrawPage';
import { RequireAdmin, RequireAuth, RequireLoggedOut } from './guards';

/** The money and KYC screens (issues 4 and 5) by their section path; a path not listed keeps the placeholder. */
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
    element: SCREENS[s.path] ?? <SectionPlaceholder title={s.title} summary={s.summary} />,
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
