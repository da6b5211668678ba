import type { User, Referral } from '@meridian/proto/meridian/identity/v1/identity';

/** Integer cents -> dollars (the REST API speaks dollars, DESIGN.md §3). */
export const dollars = (cents: number): number => Math.round(Number(cents)) / 100;

/** The user as the SPA knows it (spec §3). Never a password hash or a token. */
export function userJson(u: User | undefined) {
  if (!u) return null;
  return {
    _id: u.id,
    name: u.name,
    email: u.email,
    phone: u.phone,
    country: u.country,
    bio: u.bio,
    photo: u.photo,
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

export type UserJson = NonNullable<ReturnType<typeof userJson>>;

export function referralJson(r: Referral) {
  return { _id: r.id, name: r.name, email: r.email, photo: r.photo, createdAt: r.createdAt };
}
