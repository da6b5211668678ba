/**
 * /api/users/* exactly as spec §7 "Account" lists them, from three tables: signing in and out
 * (signInRoutes.ts), the user's own account (profileRoutes.ts) and the admin side (userAdminRoutes.ts).
 */
import type { Router } from 'express';
import { PROFILE_ROUTES } from './profileRoutes.js';
import { routerOf } from './routeTable.js';
import { SIGN_IN_ROUTES } from './signInRoutes.js';
import { USER_ADMIN_ROUTES } from './userAdminRoutes.js';
import { usersContext, type UsersRouteDeps } from './usersContext.js';

export {
  INVALID_USERS_QUERY,
  NEXT_CURSOR_HEADER,
  NO_REFERRALS,
  USERS_PAGE,
  type UsersRouteDeps,
} from './usersContext.js';

export const USERS_ROUTES = [...SIGN_IN_ROUTES, ...PROFILE_ROUTES, ...USER_ADMIN_ROUTES];

export function usersRouter(deps: UsersRouteDeps): Router {
  return routerOf(USERS_ROUTES, usersContext(deps), '/api/users');
}
