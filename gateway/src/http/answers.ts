/**
 * The JSON answers of the REST API as zod schemas: the views (userView.ts, moneyViews.ts, kycRoutes.ts)
 * are typed by them, and the OpenAPI document (openapi.ts) is generated from them, so the document, the
 * types and what the routes send are one source. Money is dollars (cents / 100) as JSON numbers.
 */
import { z } from 'zod';

/** Named schemas: each becomes `#/components/schemas/<id>` in the OpenAPI document. */
export const answerRegistry = z.registry<{ id: string; description?: string }>();

function named<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  answerRegistry.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
}

export const messageAnswer = named(
  'Message',
  z.object({ message: z.string() }),
  'A message meant for people; every error answer has this shape.',
);

export const userAnswer = named(
  'User',
  z.object({
    _id: z.string(),
    name: z.string(),
    email: z.string(),
    phone: z.string(),
    country: z.string(),
    bio: z.string(),
    photo: z.string(),
    role: z.string(),
    isVerified: z.boolean(),
    kycStatus: z.string(),
    balance: z.number(),
    investmentBalance: z.number(),
    totalMaturityAmount: z.number(),
    referralCode: z.string(),
    isImpersonated: z.boolean(),
    kyc: z.object({ frontDoc: z.string(), backDoc: z.string() }),
    createdAt: z.string(),
  }),
  'The user (spec §3). `photo` is the user’s picture, or the URL of the default avatar when they set none. Money in dollars.',
);

export const userWithMessageAnswer = named(
  'UserWithMessage',
  userAnswer.extend({ message: z.string() }),
  'The user and the server message (login with a code).',
);

export const impersonationAnswer = named(
  'Impersonation',
  z.object({ message: z.string(), user: userAnswer.nullable() }),
);

export const referralAnswer = named(
  'Referral',
  z.object({
    _id: z.string(),
    name: z.string(),
    email: z.string(),
    photo: z.string(),
    createdAt: z.string(),
  }),
);

export const referralsAnswer = named(
  'Referrals',
  z.union([z.object({ referrals: z.array(referralAnswer) }), messageAnswer]),
  "`{referrals: [...]}`, or `{message: 'No referrals'}` when there are none.",
);

export const userStatsAnswer = named(
  'UserStats',
  z.object({ total: z.number(), verified: z.number(), unverified: z.number(), suspended: z.number() }),
  'The admin’s user statistics, from counters (never from reading every user).',
);

export const queueStatsAnswer = named(
  'QueueStats',
  z.object({ deposits: z.number(), investments: z.number(), withdrawals: z.number(), kyc: z.number() }),
  'How many items wait in each admin queue, from counters the services keep (never from reading a queue).',
);

export const countryAnswer = named('Country', z.object({ name: z.string(), code: z.string() }));

export const mailAnswer = named(
  'MailboxMessage',
  z.object({
    id: z.string(),
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    links: z.array(z.string()),
    sentAt: z.string(),
  }),
);

export const healthAnswer = named('Health', z.object({ status: z.string() }));
export const readinessAnswer = named(
  'Readiness',
  z.object({
    status: z.enum(['ready', 'not ready']),
    checks: z.object({
      identity: z.enum(['ok', 'down']),
      notification: z.enum(['ok', 'down']),
      kyc: z.enum(['ok', 'down']),
    }),
  }),
);

// ---------------------------------------------------------------- KYC
export const pendingKycUserAnswer = named(
  'PendingKycUser',
  z.object({
    _id: z.string(),
    name: z.string(),
    email: z.string(),
    kycStatus: z.string(),
    kyc: z.object({ frontDoc: z.string(), backDoc: z.string() }),
    submittedAt: z.string(),
  }),
);
export const pendingKycAnswer = named(
  'PendingKyc',
  z.object({ pendingUsers: z.array(pendingKycUserAnswer) }),
);

// ---------------------------------------------------------------- money
export const personAnswer = named(
  'Person',
  z.object({ _id: z.string(), name: z.string(), email: z.string(), balance: z.number().optional() }),
  'The owner of a money record; `balance` (their Deposit Balance) on investments where known.',
);

/** Who opened a money record when it was not its owner: the impersonating admin's id; absent otherwise. */
const initiatedBy = z.string().optional();

export const depositAnswer = named(
  'Deposit',
  z.object({
    _id: z.string(),
    transactionId: z.string(),
    amount: z.number(),
    status: z.string(),
    notes: z.string(),
    createdAt: z.string(),
    decidedAt: z.string().nullable(),
    user: personAnswer,
    initiatedBy,
    sentTo: z
      .object({ network: z.string(), address: z.string(), addressId: z.string() })
      .optional()
      .describe(
        'The deposit address (given by support) the user says the funds were sent to; absent when none was named',
      ),
  }),
  'A deposit (spec "Transaction"): Pending, Confirmed or Rejected. `initiatedBy`: the admin who created it while impersonating the user.',
);

export const investmentAnswer = named(
  'Investment',
  z.object({
    _id: z.string(),
    investmentId: z.string(),
    plan: z.string(),
    status: z.string(),
    amount: z.number(),
    maturityAmount: z.number(),
    ratePercent: z.number(),
    durationMs: z.number(),
    startDate: z.string().nullable(),
    endDate: z.string().nullable(),
    datesProjected: z.boolean(),
    createdAt: z.string(),
    maturedAt: z.string().nullable(),
    user: personAnswer,
    initiatedBy,
  }),
  'An investment. `maturityAmount` (principal plus profit) is projected from the request on and fixed at approval. While pending, `startDate` and `endDate` are projected (the request time and that plus the plan’s term; `datesProjected` true); from approval on they are the real ones.',
);

const withdrawalBase = {
  _id: z.string(),
  amount: z.number(),
  walletAddress: z.string(),
  network: z.string(),
  status: z.string(),
  requestDate: z.string(),
  decidedAt: z.string().nullable(),
  initiatedBy,
};
export const withdrawalAnswer = named(
  'Withdrawal',
  z.object({ ...withdrawalBase, user: personAnswer }),
  'A withdrawal as lists show it: `user` is {_id, name, email}.',
);
export const withdrawalDetailAnswer = named(
  'WithdrawalDetail',
  z.object({ ...withdrawalBase, user: z.string(), userId: z.string(), userEmail: z.string() }),
  'A withdrawal as its detail shows it: `user` is one value (the name, else the email).',
);

export const planAnswer = named(
  'Plan',
  z.object({
    _id: z.string(),
    name: z.string(),
    minAmount: z.number(),
    maxAmount: z.number(),
    ratePercent: z.number(),
    durationMs: z.number(),
    range: z.string(),
  }),
);

export const balancesAnswer = named(
  'Balances',
  z.object({ balance: z.number(), investmentBalance: z.number(), totalMaturityAmount: z.number() }),
  'Deposit Balance, Total Investment and Total Profit (the withdrawable amount), in dollars.',
);

export const historyItemAnswer = named(
  'HistoryItem',
  z.union([
    depositAnswer.extend({ type: z.literal('Transaction'), timestamp: z.string() }),
    investmentAnswer.extend({ type: z.literal('Investment'), timestamp: z.string() }),
    withdrawalAnswer.extend({ type: z.literal('Withdrawal'), timestamp: z.string() }),
  ]),
);

/** Answers made of the records above (one component each, so every route names its answer). */
export const moneyAnswers = {
  depositCreated: named(
    'DepositCreated',
    z.object({ message: z.string(), transactionId: z.string(), transaction: depositAnswer }),
  ),
  paymentStatus: named('PaymentStatus', z.object({ transaction: depositAnswer })),
  pendingDeposits: named(
    'PendingDeposits',
    z.object({ message: z.string(), deposit: z.array(depositAnswer) }),
  ),
  paymentDecision: named('PaymentDecision', z.object({ message: z.string(), transaction: depositAnswer })),
  investmentOutcome: named(
    'InvestmentOutcome',
    z.object({ message: z.string(), investment: investmentAnswer.nullable() }),
  ),
  investmentHistory: named('InvestmentHistory', z.object({ investments: z.array(investmentAnswer) })),
  investmentDetail: named('InvestmentDetail', z.object({ investment: investmentAnswer })),
  pendingInvestments: named(
    'PendingInvestments',
    z.object({ pendingInvestments: z.array(investmentAnswer) }),
  ),
  depositMaturity: named(
    'DepositMaturity',
    z.object({ message: z.string(), settledCount: z.number(), matured: z.array(investmentAnswer) }),
  ),
  transactionHistory: named('TransactionHistory', z.object({ history: z.array(historyItemAnswer) })),
  withdrawalOutcome: named(
    'WithdrawalOutcome',
    z.object({ message: z.string(), withdrawal: withdrawalAnswer.nullable() }),
  ),
  pendingWithdrawals: named(
    'PendingWithdrawals',
    z.object({ message: z.string(), withdrawals: z.array(withdrawalAnswer) }),
  ),
  balanceEdit: named('BalanceEdit', balancesAnswer.extend({ message: z.string(), userId: z.string() })),
};

/** A claim on a pending item of an admin queue (gateway/src/live/claims.ts; pushed as `claims/changed`). */
export const claimAnswer = named(
  'Claim',
  z.object({
    kind: z.enum(['deposit', 'investment', 'withdrawal', 'kyc']),
    id: z.string(),
    adminId: z.string(),
    adminName: z.string(),
    claimedAt: z.string(),
    expiresInMs: z.number(),
    history: z.array(
      z.object({
        action: z.enum(['claimed', 'takenOver']),
        adminId: z.string(),
        adminName: z.string(),
        fromAdminId: z.string().optional(),
        fromAdminName: z.string().optional(),
        byDecision: z.boolean().optional(),
        at: z.string(),
      }),
    ),
  }),
  'Who reviews the item: the item (kind and id: a deposit, investment or withdrawal id, or for kyc the user id), the admin, and how long the claim lasts unless renewed. `history` records who claimed it (`byDecision`: by deciding it while nobody held it) and who took it over from whom.',
);

export const claimAnswers = {
  list: named('Claims', z.object({ claims: z.array(claimAnswer) })),
  outcome: named('ClaimOutcome', z.object({ message: z.string(), claim: claimAnswer })),
  released: named(
    'ClaimReleased',
    z.object({ message: z.string(), released: z.boolean() }),
    '`released` is false when the caller held no claim on the item (nothing changed).',
  ),
};

export type MessageAnswer = z.output<typeof messageAnswer>;
export type UserAnswer = z.output<typeof userAnswer>;
export type ReferralAnswer = z.output<typeof referralAnswer>;
export type PendingKycUserAnswer = z.output<typeof pendingKycUserAnswer>;
export type PersonAnswer = z.output<typeof personAnswer>;
export type DepositAnswer = z.output<typeof depositAnswer>;
export type InvestmentAnswer = z.output<typeof investmentAnswer>;
export type WithdrawalAnswer = z.output<typeof withdrawalAnswer>;
export type WithdrawalDetailAnswer = z.output<typeof withdrawalDetailAnswer>;
export type PlanAnswer = z.output<typeof planAnswer>;
export type BalancesAnswer = z.output<typeof balancesAnswer>;

export const auditEntryAnswer = named(
  'AuditEntry',
  z.object({
    id: z.string(),
    at: z.string(),
    adminId: z.string(),
    adminEmail: z.string(),
    userId: z.string(),
    userEmail: z.string(),
    action: z.string(),
    service: z.string(),
    address: z.string(),
    impersonating: z.boolean(),
    details: z.string(),
  }),
  'One admin action, or one action taken while an admin impersonated `userId`: who (`adminId`), on whose behalf or about whom (`userId`), what (`action`, the event type, and `details`), when (`at`), from which address.',
);

export const auditPageAnswer = named(
  'AuditPage',
  z.object({ entries: z.array(auditEntryAnswer), nextCursor: z.string() }),
  'Newest first; pass `nextCursor` as `cursor` for the next page (empty on the last).',
);

export const securityEventsAnswer = named(
  'SecurityEvents',
  z.object({
    events: z.array(
      z.object({
        id: z.string(),
        at: z.string(),
        kind: z.enum(['login', 'new_device', 'password_changed']),
        method: z.string(),
        address: z.string(),
      }),
    ),
  }),
  "The user's own sign-ins (`new_device`: from a browser the account had not trusted) and password changes, newest first.",
);

// ---------------------------------------------------------------- the support chat (http/supportRoutes.ts)

export const supportMessageAnswer = named(
  'SupportMessage',
  z.object({
    _id: z.string(),
    conversationId: z.string(),
    from: z.enum(['investor', 'support', 'system']),
    text: z.string(),
    createdAt: z.string(),
    internal: z.boolean(),
    authorId: z.string(),
    depositAddress: z
      .object({ addressId: z.string(), network: z.string(), address: z.string(), label: z.string() })
      .nullable(),
    attachment: z
      .object({
        _id: z.string(),
        name: z.string(),
        kind: z.enum(['jpeg', 'png', 'gif', 'webp', 'bmp', 'heic', 'pdf']),
        size: z.number().int(),
        url: z.string(),
      })
      .nullable(),
  }),
  'One message: plain text (never HTML). `internal` notes reach admins only; a "Send deposit address" message carries `depositAddress`; a message with a file carries `attachment` (its name made safe, its kind judged by its content, its size in bytes, and the `url` that serves it to the conversation\'s person and admins).',
);

export const supportConversationAnswer = named(
  'SupportConversation',
  z.object({
    _id: z.string(),
    userId: z.string().nullable(),
    visitorId: z.string().nullable(),
    name: z.string(),
    email: z.string(),
    status: z.enum(['open', 'closed']),
    assigneeId: z.string().nullable(),
    startedAt: z.string(),
    lastMessageAt: z.string(),
    lastMessageText: z.string(),
    unread: z.number(),
    blocked: z.boolean(),
  }),
  'A support conversation with an investor (`userId`) or a visitor not signed in yet (`visitorId`).',
);

export const supportConversationViewAnswer = named(
  'SupportConversationView',
  z.object({ conversation: supportConversationAnswer.nullable(), messages: z.array(supportMessageAnswer) }),
  'A conversation and its messages, oldest first (`conversation` null before the first message).',
);

export const supportSentAnswer = named(
  'SupportSent',
  z.object({ message: supportMessageAnswer.nullable(), conversation: supportConversationAnswer.nullable() }),
  'The message sent and its conversation after it.',
);

export const depositAddressEntryAnswer = named(
  'DepositAddressEntry',
  z.object({
    _id: z.string(),
    network: z.string(),
    label: z.string(),
    address: z.string(),
    status: z.enum(['active', 'retired']),
    createdAt: z.string(),
    createdBy: z.string(),
  }),
  'An address of the deposit address book; a retired one is never sent again.',
);

export const supportAnswers = {
  conversations: z.object({ conversations: z.array(supportConversationAnswer) }),
  conversationOne: z.object({ conversation: supportConversationAnswer }),
  unread: z.object({ count: z.number() }),
  cannedReplies: z.object({
    replies: z.array(z.object({ id: z.string(), title: z.string(), text: z.string() })),
  }),
  config: z.object({
    liveChatScriptUrl: z.string().nullable(),
    online: z.boolean(),
    nextAvailableAt: z.string().nullable(),
  }),
  summary: z.object({
    conversationId: z.string(),
    userId: z.string().nullable(),
    name: z.string(),
    email: z.string(),
    balances: balancesAnswer.nullable(),
    kycStatus: z.string().nullable(),
    pending: z
      .object({
        deposits: z.array(depositAnswer).nullable(),
        withdrawals: z.array(withdrawalAnswer).nullable(),
      })
      .nullable(),
  }),
  addresses: z.object({ addresses: z.array(depositAddressEntryAnswer) }),
  addressAdded: z.object({ address: depositAddressEntryAnswer }),
  addressRetired: z.object({ message: z.string(), address: depositAddressEntryAnswer }),
};
