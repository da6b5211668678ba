import type { Request } from 'express';
import type { User, Referral } from '@meridian/proto/meridian/identity/v1/identity';
import type { ReferralAnswer, UserAnswer } from './answers.js';
import { requestOriginOf } from './origins.js';

/** Integer cents -> dollars (the REST API speaks dollars, docs/architecture.md §3). */
export const dollars = (cents: number): number => Math.round(Number(cents)) / 100;

/** Where the gateway serves its default avatar (otherRoutes.ts). */
export const DEFAULT_AVATAR_PATH = '/api/avatars/default.svg';

/**
 * The default avatar's absolute URL on the origin the request reached: answered as `photo` for anyone
 * who set no picture (an empty `photo` shows a broken image in clients that render it as is), and
 * absolute so that an SPA hosted on another origin loads it from here.
 */
export function defaultAvatarUrl(req: Request): string {
  return `${requestOriginOf(req) ?? ''}${DEFAULT_AVATAR_PATH}`;
}

/** The user as the SPA knows it (spec §3). Never a password hash or a token. */
export function userJson(u: User, avatarUrl: string): UserAnswer;
export function userJson(u: User | undefined, avatarUrl: string): UserAnswer | null;
export function userJson(u: User | undefined, avatarUrl: string): UserAnswer | null {
  if (!u) return null;
  return {
    _id: u.id,
    name: u.name,
    email: u.email,
    phone: u.phone,
    country: u.country,
    bio: u.bio,
    photo: u.photo || avatarUrl,
    role: u.role,
    isVerified: u.isVerified,
    kycStatus: u.kycStatus,
    balance: dollars(u.balanceCents),
    investmentBalance: dollars(u.investmentBalanceCents),
    totalMaturityAmount: dollars(u.totalMaturityAmountCents),
    referralCode: u.referralCode,
    isImpersonated: u.isImpersonated,
    kyc: { frontDoc: u.kycFrontDoc, backDoc: u.kycBackDoc },
    createdAt: u.createdAt,
  };
}

export function referralJson(r: Referral, avatarUrl: string): ReferralAnswer {
  return { _id: r.id, name: r.name, email: r.email, photo: r.photo || avatarUrl, createdAt: r.createdAt };
}
