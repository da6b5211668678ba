/**
 * Which service may call which RPC: the one table every gRPC server of the platform checks its callers
 * against (server.ts, on the wire and in-process). The caller is the common name of the client
 * certificate (mesh.ts). A method not in the table, or a caller it does not name, is refused
 * PERMISSION_DENIED; a call without a certificate of the platform UNAUTHENTICATED.
 *
 * What each caller acts as:
 * - `user`: the gateway, on behalf of a signed-in person: the call carries the gateway's signed user
 *   assertion, verified before the handler and put in place of the request's caller and caller role
 *   (admission.ts, userAssertion.ts); no other service calls a method as `user`;
 * - `public`: the gateway, on nobody's behalf (sign-up, login, a visitor's chat, the countries list);
 * - `service`: the calling service itself (a hold placed by the investment service, a key fetched): the
 *   certificate is the whole credential, and what the request says of a user is the service's word.
 */
import { status } from '@grpc/grpc-js';
import { SERVICES } from '../services.js';

export const MESH_SERVICES = ['gateway', ...SERVICES] as const;
export type MeshService = (typeof MESH_SERVICES)[number];

export type ActingAs = 'user' | 'public' | 'service';
export type MethodCallers = Partial<Record<MeshService, ActingAs>>;

const gatewayFor = (actingAs: ActingAs): MethodCallers => ({ gateway: actingAs });
const user = gatewayFor('user');
const open = gatewayFor('public');
/** Every service of the platform, and the gateway (personal-data keys). */
const everyService: MethodCallers = Object.fromEntries(MESH_SERVICES.map((s) => [s, 'service']));

/** service (the proto's full name) -> method (as in the proto) -> who may call it. */
export const METHOD_CALLERS: Readonly<Record<string, Readonly<Record<string, MethodCallers>>>> = {
  'meridian.identity.v1.IdentityService': {
    Register: open,
    Login: open,
    SendLoginCode: open,
    LoginWithCode: open,
    GoogleLogin: open,
    ExternalLogin: open,
    Authenticate: open,
    Logout: user,
    GetUser: user,
    UpdateUser: user,
    SendVerificationEmail: user,
    VerifyUser: open,
    ChangePassword: user,
    ForgotPassword: open,
    ResetPassword: open,
    ListUsers: user,
    GetUserStats: user,
    DeleteUser: user,
    UpgradeUser: user,
    Impersonate: user,
    ExitImpersonation: user,
    ListReferrals: user,
    ListCountries: open,
    GetPersonalDataKeys: everyService,
  },
  'meridian.identity.v1.AuditService': {
    ListAuditEntries: user,
    ListSecurityEvents: user,
    RecordClaimTakeover: user,
  },
  'meridian.notification.v1.NotificationService': {
    SendAutomatedEmail: user,
    ListMailbox: open,
  },
  'meridian.kyc.v1.KycService': {
    ListPending: user,
    CountPending: user,
    Approve: user,
    Reject: user,
    GetStatus: user,
  },
  'meridian.ledger.v1.LedgerService': {
    CreateDeposit: user,
    GetDeposit: user,
    ListUserDeposits: user,
    ListPendingDeposits: user,
    CountPendingDeposits: user,
    ConfirmDeposit: user,
    RejectDeposit: user,
    PlaceHold: { investment: 'service', withdrawal: 'service' },
    CaptureHold: { investment: 'service', withdrawal: 'service' },
    ReleaseHold: { investment: 'service', withdrawal: 'service' },
    SettleMaturity: { investment: 'service' },
    SettleMaturities: { investment: 'service' },
    AdjustBalance: user,
    GetBalances: { gateway: 'user', investment: 'service', withdrawal: 'service' },
    ListBalances: user,
    ListTransactions: user,
    GetStatement: user,
    VerifyLedger: user,
    CloseAccount: user,
  },
  'meridian.investment.v1.InvestmentService': {
    ListPlans: open,
    StartInvest: user,
    InvestmentHistory: user,
    GetInvestment: user,
    ListPending: user,
    CountPending: user,
    ApproveInvestment: user,
    RejectInvestment: user,
    SettleDueForUser: user,
    CloseAccount: user,
  },
  'meridian.withdrawal.v1.WithdrawalService': {
    RequestWithdrawal: user,
    ListPending: user,
    CountPending: user,
    ListUserWithdrawals: user,
    GetWithdrawal: user,
    ApproveWithdrawal: user,
    RejectWithdrawal: user,
    CloseAccount: user,
  },
  'meridian.support.v1.SupportService': {
    GetMine: user,
    SendMine: user,
    StartVisitor: open,
    GetVisitor: open,
    SendVisitor: open,
    ListConversations: user,
    GetConversation: user,
    SendSupport: user,
    SendDepositAddress: user,
    AssignConversation: user,
    CloseConversation: user,
    ReopenConversation: user,
    BlockVisitor: user,
    CountUnread: user,
    NotifyOffline: open,
    ListAddresses: user,
    AddAddress: user,
    RetireAddress: user,
    GetGivenAddress: user,
    ListGivenAddresses: user,
    GetAttachment: user,
  },
};

/** Services every caller of the platform may call (health checks). */
const OPEN_TO_EVERY_CALLER = new Set(['grpc.health.v1.Health']);

/** The callers of `/service/Method`, undefined when the table has no such method. */
export function callersOf(path: string): MethodCallers | undefined {
  const [, service = '', method = ''] = path.split('/');
  if (OPEN_TO_EVERY_CALLER.has(service)) return everyService;
  return METHOD_CALLERS[service]?.[method];
}

export interface Refusal {
  code: status;
  details: string;
}

/**
 * Whether `caller` (the CN of its verified certificate; undefined: none) may call `path`: undefined when
 * it may, else the refusal.
 */
export function refusalOf(path: string, caller: string | undefined): Refusal | undefined {
  if (!caller)
    return { code: status.UNAUTHENTICATED, details: 'A client certificate of the platform is required' };
  const callers = callersOf(path);
  if (!callers?.[caller as MeshService])
    return { code: status.PERMISSION_DENIED, details: `The ${caller} service may not call ${path}` };
  return undefined;
}
