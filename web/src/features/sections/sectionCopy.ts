import type { SectionPath } from './sections';

/** What the placeholder of a section route says: the section's title and what it is for. */
export const SECTION_COPY: Record<SectionPath, { title: string; summary: string }> = {
  '/deposit-payment': { title: 'Deposit', summary: 'Declare a deposit to your Meridian balance.' },
  '/start-invest': { title: 'Invest', summary: 'Choose a plan and an amount to invest.' },
  '/invest-status': { title: 'Investment Status', summary: 'Follow each of your investments to maturity.' },
  '/investment/:investmentId': {
    title: 'Investment detail',
    summary: 'The terms and status of one investment.',
  },
  '/withdraw-wallet': { title: 'Withdraw', summary: 'Request a withdrawal to your wallet.' },
  '/withdrawal/:id': { title: 'Withdrawal detail', summary: 'Review one withdrawal request.' },
  '/referrals': { title: 'Referrals', summary: 'Your referral code and the people you referred.' },
  '/transaction-History': {
    title: 'Transaction History',
    summary: 'Every deposit, investment and withdrawal in one list.',
  },
  '/upload-kyc': {
    title: 'Identity verification',
    summary: 'Upload the front and back of your passport, national ID or driver’s licence.',
  },
  '/transaction/:transactionId': {
    title: 'Payment detail',
    summary: 'Confirm or reject a declared deposit.',
  },
  '/pending-kyc': {
    title: 'Pending Kyc Verification',
    summary: 'Review identity documents waiting for a decision.',
  },
  '/admin-pending-wallet': {
    title: 'Pending Withdrawal',
    summary: 'Withdrawal requests waiting for approval.',
  },
  '/admin-pending-deposit': {
    title: 'Pending Deposits',
    summary: 'Declared deposits waiting for confirmation.',
  },
  '/admin-pending-investment': { title: 'Pending Investment', summary: 'Investments waiting for approval.' },
  '/edit-balance/:id': {
    title: 'Edit total profit',
    summary: 'Adjust a user’s total profit (wallet balance).',
  },
  '/edit-user-balance/:id': { title: 'Edit deposit balance', summary: 'Adjust a user’s deposit balance.' },
  '/edit-investment-balance/:id': {
    title: 'Edit investment balance',
    summary: 'Adjust a user’s investment balance.',
  },
};
