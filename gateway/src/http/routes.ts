/**
 * Every table of the gateway's route table (routeTable.ts), in the order their routers are mounted: the
 * OpenAPI document (openapi.ts) and the authorization matrix (testing/routeMatrix.ts) read them here.
 */
import { AUDIT_ROUTES } from './auditRoutes.js';
import { CLAIM_ROUTES } from '../live/claimsRoutes.js';
import { MONEY_ROUTES } from './moneyRoutes.js';
import { API_DOCS_ROUTES, DEV_MAILBOX_ROUTES, HEALTH_ROUTES, OTHER_ROUTES } from './otherRoutes.js';
import { KYC_DOCUMENT_ROUTES, KYC_REVIEW_ROUTES } from './kycRoutes.js';
import { OIDC_ROUTES } from './oidcRoutes.js';
import { QUEUE_STATS_ROUTES } from './queueStatsRoutes.js';
import { STATEMENT_ROUTES } from './statementRoutes.js';
import { SUPPORT_ROUTES } from './supportRoutes.js';
import type { Route } from './routeTable.js';
import { USERS_ROUTES } from './usersRoutes.js';

export const TABLE_ROUTES: readonly Route<never>[] = [
  ...HEALTH_ROUTES,
  ...KYC_DOCUMENT_ROUTES,
  ...AUDIT_ROUTES,
  ...KYC_REVIEW_ROUTES,
  ...USERS_ROUTES,
  ...OIDC_ROUTES,
  ...DEV_MAILBOX_ROUTES,
  ...CLAIM_ROUTES,
  ...MONEY_ROUTES,
  ...STATEMENT_ROUTES,
  ...QUEUE_STATS_ROUTES,
  ...SUPPORT_ROUTES,
  ...OTHER_ROUTES,
  ...API_DOCS_ROUTES,
];
