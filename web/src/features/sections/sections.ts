/**
 * The money and KYC routes, with their access level. app/router.tsx gives each path its screen
 * (SCREENS there); a path without one renders a neutral placeholder inside the layout (SectionPlaceholder, with
 * the path's title and summary from sectionCopy, loaded with it).
 */
const ROUTES = [
  { path: '/deposit-payment' },
  { path: '/start-invest' },
  { path: '/invest-status' },
  { path: '/investment/:investmentId' },
  { path: '/withdraw-wallet' },
  { path: '/withdrawal/:id', admin: true },
  { path: '/referrals' },
  { path: '/transaction-History' },
  { path: '/upload-kyc' },
  { path: '/transaction/:transactionId', admin: true },
  { path: '/pending-kyc', admin: true },
  { path: '/admin-pending-wallet', admin: true },
  { path: '/admin-pending-deposit', admin: true },
  { path: '/admin-pending-investment', admin: true },
  { path: '/edit-balance/:id', admin: true },
  { path: '/edit-user-balance/:id', admin: true },
  { path: '/edit-investment-balance/:id', admin: true },
] as const;

export type SectionPath = (typeof ROUTES)[number]['path'];

export const SECTION_ROUTES: ReadonlyArray<{ path: SectionPath; admin?: boolean }> = ROUTES;
