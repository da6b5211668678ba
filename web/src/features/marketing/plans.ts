export interface StaticPlan {
  name: string;
  min: number;
  max: number;
  features: string[];
  featured?: boolean;
}

/** The six static plans of spec §2; the invest screen loads its plans from the server. */
export const STATIC_PLANS: StaticPlan[] = [
  {
    name: 'Starter',
    min: 100,
    max: 500,
    features: [
      'Ideal first investment',
      'Deposits confirmed by our team',
      'Track progress on your dashboard',
      'Email notice at every step',
    ],
  },
  {
    name: 'Bronze',
    min: 500,
    max: 1500,
    features: [
      'Everything in Starter',
      'Profit visible until maturity',
      'Withdraw to your own wallet',
      'Referral rewards up to $5',
    ],
  },
  {
    name: 'Silver',
    min: 2000,
    max: 5000,
    features: [
      'Everything in Bronze',
      'Priority review of deposits',
      'Full transaction history',
      'Support by live chat',
    ],
    featured: true,
  },
  {
    name: 'Gold',
    min: 5000,
    max: 10000,
    features: [
      'Everything in Silver',
      'Priority withdrawal review',
      'Detailed investment statements',
      'Dedicated support channel',
    ],
  },
  {
    name: 'Diamond',
    min: 10000,
    max: 50000,
    features: [
      'Everything in Gold',
      'Named account contact',
      'Quarterly portfolio review',
      'Early access to new plans',
    ],
  },
  {
    name: 'Platinum',
    min: 50000,
    max: 100000,
    features: [
      'Everything in Diamond',
      'Senior account manager',
      'Tailored reporting',
      'Same-day review of requests',
    ],
  },
];

export function formatRange(min: number, max: number): string {
  const f = (n: number) => `$${n.toLocaleString('en-US')}`;
  return `${f(min)}-${f(max)}`;
}
