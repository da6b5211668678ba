/**
 * The money and KYC routes, with their access level. app/router.tsx gives each path its screen
 * (SCREENS there); a path without one renders a neutral placeholder inside the layout.
 */
export interface SectionRoute {
  path: string;
  title: string;
  summary: string;
  admin?: boolean;
}

export const SECTION_ROUTES: SectionRoute[] = [
  { path: '/deposit-payment', title: 'Deposit', summary: 'Declare a deposit to your Meridian balance.' },
  { path: '/start-invest', title: 'Invest', summary: 'Choose a plan and an amount to invest.' },
  {
    path: '/invest-status',
    title: 'Investment Status',
    summary: 'Follow each of your investments to maturity.',
  },
  {
    path: '/investment/:investmentId',
    title: 'Investment detail',
    summary: 'The terms and status of one investment.',
  },
  { path: '/withdraw-wallet', title: 'Withdraw', summary: 'Request a withdrawal to your wallet.' },
  {
    path: '/withdrawal/:id',
    title: 'Withdrawal detail',
    summary: 'Review one withdrawal request.',
    admin: true,
  },
  { path: '/referrals', title: 'Referrals', summary: 'Your referral code and the people you referred.' },
  {
    path: '/transaction-History',
    title: 'Transaction History',
    summary: 'Every deposit, investment and withdrawal in one list.',
  },
  {
    path: '/upload-kyc',
    title: 'Identity verification',
    summary: 'Upload the front and back of your passport, national ID or driver’s licence.',
  },
  {
    path: '/transaction/:transactionId',
    title: 'Payment detail',
    summary: 'Confirm or reject a declared deposit.',
    admin: true,
  },
  {
    path: '/pending-kyc',
    title: 'Pending Kyc Verification',
    summary: 'Review identity documents waiting for a decision.',
    admin: true,
  },
  {
    path: '/admin-pending-wallet',
    title: 'Pending Withdrawal',
    summary: 'Withdrawal requests waiting for approval.',
    admin: true,
  },
  {
    path: '/admin-pending-deposit',
    title: 'Pending Deposits',
    summary: 'Declared deposits waiting for confirmation.',
    admin: true,
  },
  {
    path: '/admin-pending-investment',
    title: 'Pending Investment',
    summary: 'Investments waiting for approval.',
    admin: true,
  },
  {
    path: '/edit-balance/:id',
    title: 'Edit total profit',
    summary: 'Adjust a user’s total profit (wallet balance).',
    admin: true,
  },
  {
    path: '/edit-user-balance/:id',
    title: 'Edit deposit balance',
    summary: 'Adjust a user’s deposit balance.',
    admin: true,
  },
  {
    path: '/edit-investment-balance/:id',
    title: 'Edit investment balance',
    summary: 'Adjust a user’s investment balance.',
    admin: true,
  },
];
