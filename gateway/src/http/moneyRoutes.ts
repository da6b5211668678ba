/**
 * The money paths of spec §7: api/payments/* (paymentRoutes.ts), api/invest/* (investRoutes.ts),
 * api/withDraw/* and the three admin balance edits under api/users (withdrawRoutes.ts), in one table. Each
 * becomes one (or a few) gRPC calls to the ledger, investment or withdrawal service with `caller` from the
 * session and `caller_role` from identity's Authenticate; `email_verified` / `caller_verified` /
 * `caller_kyc_status` come from identity's GetUser (never from the browser). Admin paths are refused here
 * (401 / 403) and the services check the role again.
 */
import type { Router } from 'express';
import { routeTable, routerOf } from './routeTable.js';
import { moneyContext, type MoneyContext, type MoneyRouteDeps } from './moneyRequests.js';
import { PAYMENT_ROUTES } from './paymentRoutes.js';
import { INVEST_ROUTES } from './investRoutes.js';
import { BALANCE_EDIT_ROUTES, WITHDRAW_ROUTES } from './withdrawRoutes.js';

export { MONEY_MESSAGES, amountField, moneySchemas, type MoneyRouteDeps } from './moneyRequests.js';

export const MONEY_ROUTES = routeTable<MoneyContext>([
  ...PAYMENT_ROUTES,
  ...INVEST_ROUTES,
  ...WITHDRAW_ROUTES,
  ...BALANCE_EDIT_ROUTES,
]);

export function moneyRouter(deps: MoneyRouteDeps): Router {
  return routerOf(MONEY_ROUTES, moneyContext(deps), '/api');
}
