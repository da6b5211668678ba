/**
 * gRPC surface of the support service: proto request -> use case -> proto response, one row a method
 * (`via`). Thin. Answers leave with every sealed value opened (the stores and events keep them sealed).
 *
 * Trust boundary: `caller` (user id from the session), `caller_role` (identity's Authenticate), and an
 * investor's `caller_name` / `caller_email` (identity's user view) are filled by the gateway, never by a
 * browser; admin powers are re-checked here against caller_role. A visitor is known by their access token
 * only. NotifyOffline and GetGivenAddress are for the gateway.
 */
import type { Caller } from '@meridian/proto/meridian/common/v1/common';
import {
  SupportServiceService,
  type AddAddressRequest,
  type AssignRequest,
  type Conversation,
  type ConversationRequest,
  type ConversationWithMessages as ProtoConversationWithMessages,
  type CountUnreadRequest,
  type DepositAddress,
  type AttachmentUpload,
  type GetAttachmentRequest,
  type GetGivenAddressRequest,
  type GetMineRequest,
  type ListAddressesRequest,
  type ListConversationsRequest,
  type NotifyOfflineRequest,
  type RetireAddressRequest,
  type SendDepositAddressRequest,
  type SendMineRequest,
  type SendResponse,
  type SendSupportRequest,
  type SendVisitorRequest,
  type StartVisitorRequest,
  type SupportServiceServer,
  type VisitorRequest,
} from '@meridian/proto/meridian/support/v1/support';
import type { SupportMessage } from '@meridian/proto/meridian/support/v1/events';
import { actorOf } from '@meridian/platform/app/requestContext';
import { invalid } from '@meridian/platform/eventSourcing/errors';
import { unaryHandlers, type CallContext, type GrpcServiceRegistration } from '@meridian/platform/grpc/index';
import type { Logger } from '@meridian/platform/logger';
import type { SupportContext } from '../app/context.js';
import {
  type ConversationView,
  type ConversationWithMessages,
  type MessageView,
  type SendResult,
  type SupportCaller,
  getAttachment,
  getMine,
  getVisitor,
  givenAddress,
  givenAddresses,
  sendMine,
  sendVisitor,
  startVisitor,
} from '../app/conversations.js';
import {
  type AssignedFilter,
  type StatusFilter,
  assignConversation,
  countUnread,
  decideConversation,
  getConversation,
  listConversations,
  notifyOffline,
  sendDepositAddress,
  sendSupport,
} from '../app/inbox.js';
import { type AddressView, addAddress, listAddresses, retireAddress } from '../app/addresses.js';

const caller = (req: { caller?: Caller; callerRole: string }, call: CallContext): SupportCaller => ({
  ...actorOf(req.caller, req.callerRole),
  correlationId: req.caller?.correlationId || call.correlationId,
});

const conversationToProto = (c: ConversationView): Conversation => c;
const messageToProto = (m: MessageView): SupportMessage => m;
const withMessagesToProto = (c: ConversationWithMessages): ProtoConversationWithMessages => ({
  ...(c.conversation ? { conversation: conversationToProto(c.conversation) } : {}),
  messages: c.messages.map(messageToProto),
});
const sentToProto = (s: SendResult): SendResponse => ({
  conversation: conversationToProto(s.conversation),
  message: messageToProto(s.message),
});
const addressToProto = (a: AddressView): DepositAddress => a;
/** What a request sends as a message: its text, and its file (absent when the request carries none). */
const messageOf = ({ text, attachment: a }: { text: string; attachment?: AttachmentUpload }) => ({
  text,
  ...(a ? { attachment: { content: a.content, fileName: a.fileName } } : {}),
});

const STATUS_FILTERS: readonly StatusFilter[] = ['open', 'closed', ''];
const ASSIGNED_FILTERS: readonly AssignedFilter[] = ['me', 'none', 'any'];

function statusFilter(value: string): StatusFilter {
  const v = (value || '') as StatusFilter;
  if (!STATUS_FILTERS.includes(v)) throw invalid('status must be open or closed');
  return v;
}

function assignedFilter(value: string): AssignedFilter {
  const v = (value || 'any') as AssignedFilter;
  if (!ASSIGNED_FILTERS.includes(v)) throw invalid('assigned must be me, none or any');
  return v;
}

export function supportGrpcService(
  ctx: SupportContext,
  options: { logger: Logger },
): GrpcServiceRegistration {
  /** A method as one use case: the request as its input, the use case, its answer (opened) as the response. */
  const via =
    <Req, In, Out, Res>(
      useCase: (c: SupportContext, input: In) => Promise<Out>,
      input: (req: Req, call: CallContext) => In,
      output: (out: Out) => Res,
    ) =>
    async (req: Req, call: CallContext): Promise<Res> =>
      ctx.personalData.openAll(output(await useCase(ctx, input(req, call))));

  /** A method whose use case takes its caller (from the request and the call) apart from its input. */
  const byCaller = <Req extends { caller?: Caller; callerRole: string }, In, Out, Res>(
    useCase: (c: SupportContext, who: SupportCaller, input: In) => Promise<Out>,
    input: (req: Req) => In,
    output: (out: Out) => Res,
  ) =>
    via(
      (c, asked: { who: SupportCaller; input: In }) => useCase(c, asked.who, asked.input),
      (req: Req, call) => ({ who: caller(req, call), input: input(req) }),
      output,
    );

  /** The admin decisions on a conversation that take only its id. */
  const decision = (type: Parameters<typeof decideConversation>[3]) =>
    byCaller(
      (c, who, conversationId: string) => decideConversation(c, who, conversationId, type),
      (req: ConversationRequest) => req.conversationId,
      conversationToProto,
    );

  const investor = (req: GetMineRequest, call: CallContext) => ({
    caller: caller(req, call),
    name: req.callerName,
    email: req.callerEmail,
    verified: req.callerVerified,
  });

  const handlers = unaryHandlers(
    {
      getMine: via(getMine, investor, withMessagesToProto),
      sendMine: via(
        sendMine,
        (req: SendMineRequest, call) => ({
          ...investor(req, call),
          ...messageOf(req),
        }),
        sentToProto,
      ),
      startVisitor: via(
        startVisitor,
        (req: StartVisitorRequest, call) => ({
          name: req.name,
          email: req.email,
          text: req.text,
          correlationId: call.correlationId,
          address: req.clientAddress || undefined,
        }),
        (out) => ({ conversation: withMessagesToProto(out), token: out.token }),
      ),
      getVisitor: via(getVisitor, (req: VisitorRequest) => req.token, withMessagesToProto),
      sendVisitor: via(
        sendVisitor,
        (req: SendVisitorRequest, call) => ({
          token: req.token,
          correlationId: call.correlationId,
          ...messageOf(req),
        }),
        sentToProto,
      ),
      listConversations: byCaller(
        listConversations,
        (req: ListConversationsRequest) => ({
          status: statusFilter(req.status),
          assigned: assignedFilter(req.assigned),
          q: req.q,
        }),
        (conversations) => ({ conversations: conversations.map(conversationToProto) }),
      ),
      getConversation: byCaller(
        getConversation,
        (req: ConversationRequest) => req.conversationId,
        withMessagesToProto,
      ),
      sendSupport: byCaller(
        sendSupport,
        (req: SendSupportRequest) => ({
          conversationId: req.conversationId,
          internal: req.internal,
          ...messageOf(req),
        }),
        sentToProto,
      ),
      sendDepositAddress: byCaller(
        sendDepositAddress,
        (req: SendDepositAddressRequest) => ({
          conversationId: req.conversationId,
          addressId: req.addressId,
        }),
        sentToProto,
      ),
      assignConversation: byCaller(
        assignConversation,
        (req: AssignRequest) => ({
          conversationId: req.conversationId,
          assigneeId: req.assigneeId,
        }),
        conversationToProto,
      ),
      closeConversation: decision('CloseConversation'),
      reopenConversation: decision('ReopenConversation'),
      blockVisitor: decision('BlockVisitor'),
      countUnread: via(
        countUnread,
        (req: CountUnreadRequest, call) => caller(req, call),
        (out) => out,
      ),
      notifyOffline: via(
        notifyOffline,
        (req: NotifyOfflineRequest, call) => ({
          conversationId: req.conversationId,
          correlationId: call.correlationId,
        }),
        (out) => out,
      ),
      listAddresses: via(
        listAddresses,
        (req: ListAddressesRequest, call) => caller(req, call),
        (addresses) => ({ addresses: addresses.map(addressToProto) }),
      ),
      addAddress: byCaller(
        addAddress,
        (req: AddAddressRequest) => ({
          network: req.network,
          label: req.label,
          address: req.address,
        }),
        addressToProto,
      ),
      retireAddress: byCaller(retireAddress, (req: RetireAddressRequest) => req.addressId, addressToProto),
      getGivenAddress: via(
        givenAddress,
        (req: GetGivenAddressRequest) => ({ userId: req.userId, addressId: req.addressId }),
        (out) => out,
      ),
      getAttachment: via(
        getAttachment,
        (req: GetAttachmentRequest, call) => ({
          ...(req.caller?.userId ? { caller: caller(req, call) } : {}),
          visitorToken: req.visitorToken,
          attachmentId: req.attachmentId,
        }),
        (out) => out,
      ),
      listGivenAddresses: via(
        givenAddresses,
        (req: GetMineRequest, call) => caller(req, call).userId,
        (addresses) => ({ addresses }),
      ),
    },
    { logger: options.logger },
  );
  const implementation: SupportServiceServer = handlers;
  return { definition: SupportServiceService, implementation };
}
