/**
 * The copy of the lazily loaded marketing pages: each page's header (MarketingPage), and the titled
 * paragraphs, steps and badges they list.
 */
export interface PageCopy {
  eyebrow: string;
  title: string;
  subtitle: string;
}

/** A title with its paragraph. */
export interface Titled {
  title: string;
  text: string;
}

export const PAGES = {
  about: {
    eyebrow: 'About',
    title: 'About Meridian',
    subtitle:
      'We built Meridian for people who want their money to work without guessing what happens to it.',
  },
  contact: {
    eyebrow: 'Contact',
    title: 'Contact us',
    subtitle: 'Questions about a plan, a deposit or your account? Our team answers every message.',
  },
  howItWorks: {
    eyebrow: 'Workflow',
    title: 'How it works',
    subtitle: 'Six steps from sign-up to your first withdrawal.',
  },
  hierarchy: {
    eyebrow: 'Hierarchy',
    title: 'Ranking badges',
    subtitle: 'Badges recognise your journey with Meridian.',
  },
  plans: {
    eyebrow: 'Plans',
    title: 'Investment plans',
    subtitle:
      'Six plans, each with a published investment range. Pick the one that fits the amount you want to invest.',
  },
  privacy: {
    eyebrow: 'Legal',
    title: 'Privacy policy',
    subtitle: 'How Meridian handles your personal data.',
  },
} satisfies Record<string, PageCopy>;

/** What Meridian stands for (the about page). */
export const VALUES: Titled[] = [
  {
    title: 'Clarity',
    text: 'Every plan has a published range and every investment shows its projected profit and maturity date.',
  },
  {
    title: 'Review',
    text: 'People, not only software, confirm deposits, investments and withdrawals before they settle.',
  },
  {
    title: 'Security',
    text: 'Verified emails, identity checks, login codes for new devices and sessions that you can end at any time.',
  },
];

/** The sections of the privacy policy. */
export const PRIVACY_SECTIONS: Titled[] = [
  {
    title: 'What we collect',
    text: 'Your name, email, phone, country, profile details, identity documents you upload, and a record of your deposits, investments, withdrawals and logins.',
  },
  {
    title: 'Why we collect it',
    text: 'To run your account, verify your identity, review money movements, protect you from fraud and meet our legal obligations.',
  },
  {
    title: 'Cookies',
    text: 'We use strictly necessary cookies to keep you logged in and to protect forms against forgery. We do not use them for advertising.',
  },
  {
    title: 'Who we share it with',
    text: 'Only with service providers that help us run Meridian (for example email delivery), under contract, and with authorities where the law requires it.',
  },
  {
    title: 'How long we keep it',
    text: 'For as long as your account is open and afterwards for the period the law requires for financial records.',
  },
  {
    title: 'Your rights',
    text: 'You can see and correct your profile at any time, and you can ask us for a copy of your data or its deletion where the law allows.',
  },
];

/** From sign-up to the first withdrawal (how it works). */
export const STEPS: Titled[] = [
  {
    title: 'Create your account',
    text: 'Register with your name, email, phone and country. Add a referral code if a friend invited you.',
  },
  {
    title: 'Verify your email',
    text: 'Open the link we email you. New browsers are confirmed with a one-time login code.',
  },
  {
    title: 'Confirm your identity',
    text: 'Upload the front and back of a passport, national ID or driver’s licence for review.',
  },
  {
    title: 'Deposit',
    text: 'Arrange the wallet address with support, send the funds and declare the USD amount. Our team confirms it.',
  },
  { title: 'Invest', text: 'Choose a plan and an amount. Your projected profit accrues until maturity.' },
  {
    title: 'Withdraw',
    text: 'Request a withdrawal to your wallet. Once approved, it is typically processed within 1-2 business days.',
  },
];

/** The ranking badges, lowest first (hierarchy). */
export const BADGES: Array<{ name: string; tone: string; text: string }> = [
  { name: 'Member', tone: 'member', text: 'Every verified investor starts here.' },
  { name: 'Leader', tone: 'leader', text: 'Active investors who have referred friends to Meridian.' },
  { name: 'Expert', tone: 'expert', text: 'Investors with several completed plans.' },
  { name: 'Master', tone: 'master', text: 'Our most experienced investors across the higher plans.' },
];
