import { api } from '../../app/apiClient';
import type { AuthProvider, Country, LoginInput, ProfileChanges, RegisterInput, User } from './authTypes';

const USERS = 'users/';

export interface UsersPage {
  users: User[];
  nextCursor: string;
}

export interface UserStats {
  total: number;
  verified: number;
  unverified: number;
  suspended: number;
}

interface MessageAnswer {
  message: string;
}

/** Register, login and login-with-code answer the user, either bare or as `{ user, message }`. */
function asUser(data: unknown): User {
  const d = data as { user?: User } & User;
  if (d && typeof d === 'object' && d.user && typeof d.user === 'object') return d.user;
  const { message: _message, ...user } = d as User & { message?: string };
  return user as User;
}

function asMessage(data: unknown): string {
  return (data as Partial<MessageAnswer> | undefined)?.message ?? '';
}

const enc = encodeURIComponent;

export const authApi = {
  async register(input: RegisterInput): Promise<User> {
    return asUser((await api.post(`${USERS}register`, input)).data);
  },
  async login(input: LoginInput): Promise<User> {
    return asUser((await api.post(`${USERS}login`, input)).data);
  },
  async logout(): Promise<string> {
    return asMessage((await api.get(`${USERS}logout`)).data);
  },
  async loginStatus(): Promise<boolean> {
    const data: unknown = (await api.get(`${USERS}loginStatus`)).data;
    if (typeof data === 'boolean') return data;
    if (data && typeof data === 'object' && 'loggedIn' in data)
      return Boolean((data as { loggedIn: unknown }).loggedIn);
    return data === 'true';
  },
  async getUser(): Promise<User> {
    return asUser((await api.get(`${USERS}getUser`)).data);
  },
  async updateUser(changes: ProfileChanges): Promise<User> {
    return asUser((await api.patch(`${USERS}updateUser`, changes)).data);
  },
  async sendVerificationEmail(): Promise<string> {
    return asMessage((await api.post(`${USERS}sendVerificationEmail`, {})).data);
  },
  async verifyUser(verificationToken: string): Promise<string> {
    return asMessage((await api.patch(`${USERS}verifyUser/${enc(verificationToken)}`, {})).data);
  },
  async changePassword(input: { oldPassword: string; password: string }): Promise<string> {
    return asMessage((await api.patch(`${USERS}changePassword`, input)).data);
  },
  async resetPassword(resetToken: string, password: string): Promise<string> {
    return asMessage((await api.patch(`${USERS}resetPassword/${enc(resetToken)}`, { password })).data);
  },
  async forgotPassword(email: string): Promise<string> {
    return asMessage((await api.post(`${USERS}forgotPassword`, { email })).data);
  },
  async getUsers(): Promise<User[]> {
    const data: unknown = (await api.get(`${USERS}getUsers`)).data;
    if (Array.isArray(data)) return data as User[];
    return ((data as { users?: User[] } | undefined)?.users ?? []) as User[];
  },
  /** A page of users, newest first; `nextCursor` is empty on the last page (header X-Next-Cursor). */
  async getUsersPage(page: { limit: number; cursor?: string; q?: string }): Promise<UsersPage> {
    const params = new URLSearchParams({ limit: String(page.limit) });
    if (page.cursor) params.set('cursor', page.cursor);
    if (page.q) params.set('q', page.q);
    const res = await api.get(`${USERS}getUsers?${params.toString()}`);
    const users = Array.isArray(res.data) ? (res.data as User[]) : [];
    return { users, nextCursor: res.headers?.['x-next-cursor'] ?? '' };
  },
  /** One user by id (an admin screen about one user opened by its address), or undefined when there is none. */
  async getUserById(id: string): Promise<User | undefined> {
    const res = await api.get(`${USERS}getUsers?id=${enc(id)}`);
    const [user] = Array.isArray(res.data) ? (res.data as User[]) : [];
    return user?._id === id ? user : undefined;
  },
  async getUserStats(): Promise<UserStats> {
    return (await api.get(`${USERS}userStats`)).data as UserStats;
  },
  /** DELETE users/{id}; `cancelPending`: the user's pending requests are cancelled (holds released) first. */
  async deleteUser(input: { id: string; cancelPending?: boolean }): Promise<string> {
    const query = input.cancelPending ? '?cancelPending=true' : '';
    return asMessage((await api.delete(`${USERS}${enc(input.id)}${query}`)).data);
  },
  async upgradeUser(input: { id: string; role: string }): Promise<string> {
    return asMessage((await api.post(`${USERS}upgradeUser`, { role: input.role, id: input.id })).data);
  },
  async sendLoginCode(email: string): Promise<string> {
    return asMessage((await api.post(`${USERS}sendLoginCode/${enc(email)}`, {})).data);
  },
  async loginWithCode(email: string, loginCode: string): Promise<{ user: User; message: string }> {
    const data: unknown = (await api.post(`${USERS}loginWithCode/${enc(email)}`, { loginCode })).data;
    return { user: asUser(data), message: asMessage(data) };
  },
  async googleLogin(credential: string): Promise<User> {
    return asUser((await api.post(`${USERS}google/callback`, { credential })).data);
  },
  async impersonate(id: string): Promise<string> {
    return asMessage((await api.post(`${USERS}impersonate/${enc(id)}`, {})).data);
  },
  async exitImpersonation(): Promise<string> {
    return asMessage((await api.post(`${USERS}exit-impersonation`, {})).data);
  },
  /** The OpenID Connect providers to sign in with ([] when none is configured). */
  async authProviders(): Promise<AuthProvider[]> {
    const data: unknown = (await api.get('auth/providers')).data;
    return Array.isArray(data) ? (data as AuthProvider[]) : [];
  },
  async countries(): Promise<Country[]> {
    const data: unknown = (await api.get('countries')).data;
    if (Array.isArray(data)) return data as Country[];
    return ((data as { countries?: Country[] } | undefined)?.countries ?? []) as Country[];
  },
};
