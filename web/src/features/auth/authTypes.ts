export type Role = 'subscriber' | 'author' | 'admin' | 'suspended';
export const ROLES: readonly Role[] = ['subscriber', 'author', 'admin', 'suspended'];

export interface User {
  _id: string;
  name: string;
  email: string;
  phone?: string;
  country?: string;
  bio?: string;
  photo?: string;
  role: Role | string;
  isVerified: boolean;
  kycStatus?: string;
  balance?: number;
  investmentBalance?: number;
  totalMaturityAmount?: number;
  referralCode?: string;
  isImpersonated?: boolean;
  kyc?: { frontDoc?: string; backDoc?: string };
}

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
  phone: string;
  country: string;
  referralCode?: string;
}

export interface LoginInput {
  email: string;
  password: string;
}

export type ProfileChanges = Partial<Pick<User, 'name' | 'phone' | 'bio' | 'country' | 'photo'>>;

export interface Country {
  name: string;
  code: string;
}

/** An OpenID Connect provider people may sign in with (GET api/auth/providers). */
export interface AuthProvider {
  id: string;
  name: string;
}
