/**
 * Every email Meridian sends, keyed by template name. Adding an email is one entry here:
 * a typed data shape and a render function built on the shared layout. Pure.
 *
 * `automated: true` puts a template on the allowlist of the SendAutomatedEmail RPC
 * (docs/architecture.md §7); every other template is sent only by the service itself, from events.
 */
import { joinUrl, renderLayout, type LayoutInput, type RenderedEmail } from './layout.js';

export interface TemplateContext {
  /** Public base URL of the web app (APP_URL), links in emails point under it. */
  appUrl: string;
}

export interface EmailTemplate<D> {
  automated: boolean;
  render(data: D, ctx: TemplateContext): RenderedEmail;
}

export const LOGIN_CODE_VALIDITY = '15 minutes';
export const RESET_LINK_VALIDITY = '1 hour';
export const VERIFY_LINK_VALIDITY = '24 hours';

const ACCOUNT_REASON = 'You received this email because of activity on your Meridian account.';
const SECURITY_REASON =
  'You received this security notice because it concerns your Meridian account. We send it for every change of this kind.';
const MONEY_REASON = 'You received this email because of a transaction on your Meridian account.';
const KYC_REASON = 'You received this email because of your identity verification (KYC) on Meridian.';
const SUPPORT_REASON = 'You received this email because you wrote to Meridian support.';

/** Integer cents -> "$1,250.00". No floating point on money. */
export function formatUsd(cents: number): string {
  const negative = cents < 0;
  const abs = Math.abs(Math.trunc(cents));
  const dollars = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const rest = (abs % 100).toString().padStart(2, '0');
  return `${negative ? '-' : ''}$${dollars}.${rest}`;
}

const path = (ctx: TemplateContext, ...segments: string[]) =>
  joinUrl(ctx.appUrl, segments.map((s) => encodeURIComponent(s)).join('/'));

const ROLE_LABEL: Record<string, string> = {
  subscriber: 'Subscriber',
  author: 'Author',
  admin: 'Administrator',
  suspended: 'Suspended',
};
const roleLabel = (role: string) => ROLE_LABEL[role] ?? role;

interface Named {
  name: string;
}
/** A path on APP_URL leading back to a support conversation (a visitor's carries their access token). */
interface SupportLink extends Named {
  link: string;
}
interface AutomatedData extends Named {
  /** Already validated to lie under APP_URL (see app/sendAutomatedEmail.ts). */
  url: string;
  subject?: string;
}

export const templates = {
  // ---- account (identity events) ----
  verifyEmail: sent<Named & { token: string }>(
    'You received this email because this address was used to sign up for Meridian.',
    (d, ctx) => ({
      subject: 'Verify your email address',
      preheader: 'Confirm your email to finish setting up your Meridian account.',
      heading: 'Confirm your email address',
      blocks: [
        {
          kind: 'paragraph',
          text: 'Thanks for joining Meridian. Please confirm that this is your email address.',
        },
        { kind: 'button', label: 'Verify email', url: path(ctx, 'verify', d.token) },
        {
          kind: 'note',
          text: `This link is valid for ${VERIFY_LINK_VALIDITY} and can be used once. If you did not create an account, you can ignore this email.`,
        },
      ],
    }),
  ),

  loginCode: sent<Named & { code: string; email: string }>(SECURITY_REASON, (d, ctx) => ({
    subject: `Your Meridian login code: ${d.code}`,
    preheader: `Your login code is ${d.code}. It is valid for ${LOGIN_CODE_VALIDITY}.`,
    heading: 'Your login code',
    blocks: [
      {
        kind: 'paragraph',
        text: 'We noticed a sign-in from a new browser or device. Enter this code to continue:',
      },
      { kind: 'code', value: d.code },
      { kind: 'button', label: 'Enter your code', url: path(ctx, 'loginWithCode', d.email) },
      {
        kind: 'note',
        text: `The code is valid for ${LOGIN_CODE_VALIDITY} and can be used once. Never share it with anyone; Meridian staff will never ask for it. If this was not you, change your password.`,
      },
    ],
  })),

  resetPassword: sent<Named & { token: string }>(SECURITY_REASON, (d, ctx) => ({
    subject: 'Reset your Meridian password',
    preheader: `Use this link within ${RESET_LINK_VALIDITY} to choose a new password.`,
    heading: 'Reset your password',
    blocks: [
      {
        kind: 'paragraph',
        text: 'We received a request to reset the password of your Meridian account.',
      },
      { kind: 'button', label: 'Choose a new password', url: path(ctx, 'resetPassword', d.token) },
      {
        kind: 'note',
        text: `This link is valid for ${RESET_LINK_VALIDITY} and can be used once. If you did not ask for it, ignore this email: your password stays the same.`,
      },
    ],
  })),

  passwordChanged: sent<Named & { via: string; changedAt: string }>(SECURITY_REASON, (d, ctx) => ({
    subject: 'Your Meridian password was changed',
    preheader: 'Your password was just changed and your other sessions were signed out.',
    heading: 'Your password was changed',
    blocks: [
      {
        kind: 'paragraph',
        text:
          d.via === 'reset'
            ? 'The password of your Meridian account was reset with a reset link.'
            : 'The password of your Meridian account was changed from your profile.',
      },
      ...(d.changedAt ? [{ kind: 'facts' as const, rows: [{ label: 'When', value: d.changedAt }] }] : []),
      { kind: 'paragraph', text: 'For your safety, every open session was signed out.' },
      { kind: 'button', label: 'This was not me: reset my password', url: path(ctx, 'forgot') },
    ],
  })),

  roleChanged: sent<Named & { fromRole: string; toRole: string }>(ACCOUNT_REASON, (d, ctx) => ({
    subject:
      d.toRole === 'suspended' ? 'Your Meridian account was suspended' : 'Your Meridian role was changed',
    preheader: `Your role is now ${roleLabel(d.toRole)}.`,
    heading: d.toRole === 'suspended' ? 'Your account was suspended' : 'Your role was changed',
    blocks: [
      { kind: 'paragraph', text: 'An administrator changed the role of your Meridian account.' },
      {
        kind: 'facts',
        rows: [
          { label: 'Previous role', value: roleLabel(d.fromRole) },
          { label: 'New role', value: roleLabel(d.toRole) },
        ],
      },
      d.toRole === 'suspended'
        ? {
            kind: 'paragraph',
            text: 'While your account is suspended you cannot sign in. Contact support if you think this is a mistake.',
          }
        : { kind: 'button', label: 'Open your dashboard', url: path(ctx, 'dashboard') },
    ],
  })),

  // ---- money (ledger, investment, withdrawal events; wired by later issues) ----
  depositConfirmed: money<Named & { amountCents: number; transactionId: string }>((d, ctx) => ({
    heading: 'Your deposit was confirmed',
    lead: `Your deposit of ${formatUsd(d.amountCents)} was confirmed and added to your Deposit Balance.`,
    rows: [amountRow(d.amountCents)],
    button: viewDeposit(ctx, d.transactionId),
  })),
  depositRejected: money<Named & { amountCents: number; transactionId: string; notes?: string }>(
    (d, ctx) => ({
      heading: 'Your deposit was rejected',
      lead: `Your deposit of ${formatUsd(d.amountCents)} was rejected. No money moved.`,
      rows: [amountRow(d.amountCents), ...(d.notes ? [{ label: 'Notes', value: d.notes }] : [])],
      button: viewDeposit(ctx, d.transactionId),
    }),
  ),
  investmentApproved: money<
    Named & {
      investmentId: string;
      planName: string;
      amountCents: number;
      maturityAmountCents: number;
      endDate: string;
    }
  >((d, ctx) => ({
    heading: 'Your investment is active',
    lead: `Your ${d.planName} investment was approved and is now active.`,
    rows: [
      planRow(d.planName),
      amountRow(d.amountCents),
      amountRow(d.maturityAmountCents, 'Amount at maturity'),
      { label: 'Matures', value: d.endDate },
    ],
    button: viewInvestment(ctx, d.investmentId),
  })),
  investmentRejected: money<Named & { investmentId: string; planName: string; amountCents: number }>(
    (d, ctx) => ({
      heading: 'Your investment was rejected',
      lead: `Your ${d.planName} investment of ${formatUsd(d.amountCents)} was rejected. The held amount is back in your Deposit Balance.`,
      rows: [planRow(d.planName), amountRow(d.amountCents)],
      button: viewInvestment(ctx, d.investmentId),
    }),
  ),
  investmentMatured: money<Named & { investmentId: string; planName: string; maturityAmountCents: number }>(
    (d, ctx) => ({
      heading: 'Your investment has matured',
      lead: `Your ${d.planName} investment has matured. ${formatUsd(d.maturityAmountCents)} was added to your Total Profit.`,
      rows: [planRow(d.planName), amountRow(d.maturityAmountCents, 'Paid to Total Profit')],
      button: viewInvestment(ctx, d.investmentId),
    }),
  ),
  withdrawalRequested: money<Named & { withdrawalId: string; amountCents: number; walletAddress: string }>(
    (d, ctx) => ({
      heading: 'We received your withdrawal request',
      lead: `Your withdrawal of ${formatUsd(d.amountCents)} is waiting for approval. We will email you once it is processed.`,
      rows: [amountRow(d.amountCents), walletRow(d.walletAddress)],
      button: viewHistory(ctx),
    }),
  ),
  withdrawalApproved: money<Named & { withdrawalId: string; amountCents: number; walletAddress: string }>(
    (d, ctx) => ({
      heading: 'Your withdrawal was approved',
      lead: `Your withdrawal of ${formatUsd(d.amountCents)} was approved and sent to your wallet.`,
      rows: [amountRow(d.amountCents), walletRow(d.walletAddress)],
      button: viewHistory(ctx),
    }),
  ),
  withdrawalRejected: money<Named & { withdrawalId: string; amountCents: number }>((d, ctx) => ({
    heading: 'Your withdrawal was rejected',
    lead: `Your withdrawal of ${formatUsd(d.amountCents)} was rejected. The amount is back in your Total Profit.`,
    rows: [amountRow(d.amountCents)],
    button: viewHistory(ctx),
  })),
  referralBonus: money<Named & { amountCents: number; refereeName: string }>((d, ctx) => ({
    heading: 'You earned a referral bonus',
    lead: `${d.refereeName} made their first deposit, so ${formatUsd(d.amountCents)} was added to your Deposit Balance.`,
    rows: [amountRow(d.amountCents, 'Bonus')],
    button: { label: 'See your referrals', url: path(ctx, 'referrals') },
  })),

  // ---- KYC ----
  kycSubmitted: prompt<Named & { userName: string; userEmail: string }>(
    'You received this email because you are a Meridian administrator.',
    (d, ctx) => ({
      subject: 'New KYC documents to review',
      preheader: `${d.userName} submitted identity documents.`,
      heading: 'KYC documents to review',
      text: `${d.userName} (${d.userEmail}) submitted identity documents for review.`,
      button: { label: 'Review pending KYC', url: path(ctx, 'pending-kyc') },
    }),
  ),
  kycApproved: prompt<Named>(KYC_REASON, (d, ctx) => ({
    subject: 'Your identity is verified',
    preheader: 'Your KYC documents were approved.',
    heading: 'Your identity is verified',
    text: 'Your KYC documents were approved. You can now withdraw from your Total Profit.',
    button: { label: 'Open your dashboard', url: path(ctx, 'dashboard') },
  })),
  kycRejected: sent<Named & { reason?: string }>(KYC_REASON, (d, ctx) => ({
    subject: 'Your KYC documents were not accepted',
    preheader: 'Please upload your documents again.',
    heading: 'Your KYC documents were not accepted',
    blocks: [
      {
        kind: 'paragraph',
        text: 'We could not verify your identity from the documents you uploaded. Please upload clear photos of the front and back again.',
      },
      ...(d.reason ? [{ kind: 'facts' as const, rows: [{ label: 'Reason', value: d.reason }] }] : []),
      { kind: 'button', label: 'Upload documents', url: path(ctx, 'upload-kyc') },
    ],
  })),
  supportReply: toConversation({
    subject: 'Meridian support replied to you',
    preheader: 'A new reply is waiting in your support conversation.',
    heading: 'Support replied',
    text: 'Our support team answered you in your conversation. Open it to read the reply and write back.',
  }),
  supportStarted: toConversation({
    subject: 'Your conversation with Meridian support',
    preheader: 'Come back to your support conversation with this link.',
    heading: 'We received your message',
    text: 'Support will answer you in the chat. Come back to the conversation any time with this link; keep it private, it opens your conversation.',
  }),

  // ---- allowlisted for SendAutomatedEmail (the SPA's own notices, to the caller only) ----
  investmentNotice: notice(
    'Your investment request was received',
    'We received your investment request. An administrator will review it shortly and we will email you the outcome.',
    'View your investments',
  ),
  depositNotice: notice(
    'Your deposit request was received',
    'We received your deposit request. It will show in your Deposit Balance once an administrator confirms the payment.',
    'View your history',
  ),
  withdrawalNotice: notice(
    'Your withdrawal request was received',
    'We received your withdrawal request. It is processed once approved, and we will email you the outcome.',
    'View your history',
  ),
} as const;

export type Templates = typeof templates;
export type TemplateName = keyof Templates;
export type TemplateData<N extends TemplateName> = Templates[N] extends EmailTemplate<infer D> ? D : never;

export function isTemplateName(name: string): name is TemplateName {
  return Object.prototype.hasOwnProperty.call(templates, name);
}

/** The names SendAutomatedEmail accepts. */
export const automatedTemplateNames: readonly TemplateName[] = (
  Object.keys(templates) as TemplateName[]
).filter((name) => templates[name].automated);

export function renderEmail<N extends TemplateName>(
  name: N,
  data: TemplateData<N>,
  ctx: TemplateContext,
): RenderedEmail {
  return (templates[name] as EmailTemplate<TemplateData<N>>).render(data, ctx);
}

/** What a money email says: a heading, a lead line, the facts, one button (the layout and reason are shared). */
interface MoneyEmail {
  heading: string;
  lead: string;
  rows: Array<{ label: string; value: string }>;
  button: { label: string; url: string };
}

/** The facts and buttons money emails share. */
const amountRow = (cents: number, label = 'Amount') => ({ label, value: formatUsd(cents) });
const planRow = (planName: string) => ({ label: 'Plan', value: planName });
const walletRow = (walletAddress: string) => ({ label: 'Wallet', value: walletAddress });
const viewDeposit = (ctx: TemplateContext, transactionId: string) => ({
  label: 'View the deposit',
  url: path(ctx, 'transaction', transactionId),
});
const viewInvestment = (ctx: TemplateContext, investmentId: string) => ({
  label: 'View the investment',
  url: path(ctx, 'investment', investmentId),
});
const viewHistory = (ctx: TemplateContext) => ({
  label: 'View your history',
  url: path(ctx, 'transaction-History'),
});

/** What an email says: the layout adds the greeting by name, the reason line and the links' base. */
type EmailBody = Omit<LayoutInput, 'greetingName' | 'reason' | 'appUrl'>;

/** An email the service sends itself (from events; never on the SendAutomatedEmail allowlist), sent for `reason`. */
function sent<D extends Named>(
  reason: string,
  says: (d: D, ctx: TemplateContext) => EmailBody,
): EmailTemplate<D> {
  return {
    automated: false,
    render: (d, ctx) => renderLayout({ ...says(d, ctx), greetingName: d.name, reason, appUrl: ctx.appUrl }),
  };
}

function money<D extends Named>(says: (d: D, ctx: TemplateContext) => MoneyEmail): EmailTemplate<D> {
  return sent(MONEY_REASON, (d, ctx) => moneyBody(says(d, ctx)));
}

function moneyBody({ heading, lead, rows, button }: MoneyEmail): EmailBody {
  return {
    subject: heading,
    preheader: lead,
    heading,
    blocks: [
      { kind: 'paragraph', text: lead },
      { kind: 'facts', rows },
      { kind: 'button', label: button.label, url: button.url },
    ],
  };
}

/** What a call to action says: one paragraph and one button under the heading. */
interface PromptEmail {
  subject: string;
  preheader: string;
  heading: string;
  text: string;
  button: { label: string; url: string };
}

/** An email of one paragraph and one button, sent for `reason` (never on the SendAutomatedEmail allowlist). */
function prompt<D extends Named>(
  reason: string,
  says: (d: D, ctx: TemplateContext) => PromptEmail,
): EmailTemplate<D> {
  return sent(reason, (d, ctx) => {
    const { subject, preheader, heading, text, button } = says(d, ctx);
    return {
      subject,
      preheader,
      heading,
      blocks: [
        { kind: 'paragraph', text },
        { kind: 'button', label: button.label, url: button.url },
      ],
    };
  });
}

/** A support email: what it says, then the one button back to the conversation (its link). */
function toConversation(says: Omit<PromptEmail, 'button'>): EmailTemplate<SupportLink> {
  return prompt(SUPPORT_REASON, (d, ctx) => ({
    ...says,
    button: { label: 'Open the conversation', url: joinUrl(ctx.appUrl, d.link) },
  }));
}

/** A notice SendAutomatedEmail may send (allowlisted): a heading, a lead line and a button to the checked link. */
function notice(heading: string, lead: string, label: string): EmailTemplate<AutomatedData> {
  return { automated: true, render: (d, ctx) => automatedNotice(ctx, d, heading, lead, label) };
}

function automatedNotice(
  ctx: TemplateContext,
  d: AutomatedData,
  heading: string,
  lead: string,
  label: string,
): RenderedEmail {
  return renderLayout({
    subject: d.subject?.trim() || heading,
    preheader: lead,
    greetingName: d.name,
    heading,
    blocks: [
      { kind: 'paragraph', text: lead },
      { kind: 'button', label, url: d.url },
    ],
    reason: 'You received this email because you asked Meridian for a notice of your own request.',
    appUrl: ctx.appUrl,
  });
}
